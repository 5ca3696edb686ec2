/**
 * The scenarios of the browser suite, each a publisher's use of Prebid.js against Gavel with what it must see. They
 * take the stand they run against, so that the negative check runs the very same scenario against a broken Gavel.
 */
import { expect } from 'chai';
import type { ScenarioPage } from './support/browser.js';
import { SYNCED_UID, vastOf, type Stand } from './support/stand.js';

/** What `gavelRun` answers (see support/pages.ts). */
export interface PageBid {
  bidderCode: string;
  adUnitCode: string;
  cpm: number;
  mediaType: string;
  adId: string;
  width?: number;
  height?: number;
  ad?: string;
  vastUrl?: string;
  vastXml?: string;
  videoCacheKey?: string;
  native?: Record<string, any>;
  pbsBidId?: string;
  adserverTargeting?: Record<string, string>;
}
export interface PageAuction {
  timedOut: boolean;
  elapsedMs: number;
  events: {
    bidderDone: Array<{ bidderCode: string; src: string; serverErrors: Array<{ code: number; message: string }>; serverResponseTimeMs?: number }>;
    bidRejected: Array<{ bidderCode: string; reason: string }>;
    bidResponse: string[];
    adRenderFailed: string[];
  };
  bids: Record<string, PageBid[]>;
  highest: Record<string, PageBid[]>;
  targeting: Record<string, Record<string, string>>;
  fetched: Record<string, string>;
  gamVideoUrl?: string;
}

interface Setup {
  config: Record<string, unknown>;
  adUnits: Array<Record<string, unknown>>;
  timeout?: number;
  render?: { adUnitCode: string; frameId: string };
  videoUrlFor?: string;
  fetchVast?: boolean;
}

/**
 * The publisher's Prebid.js config pointing at Gavel: `s2sConfig` with the auction and cookie-sync endpoints, and
 * the `hb_cache_id` key added to what Prebid.js sends the ad server (it is not one of its default keys).
 */
export function publisherConfig(stand: Stand, bidders: string[], s2s: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    s2sConfig: [{
      accountId: 'pub-1',
      bidders,
      adapter: 'prebidServer',
      enabled: true,
      endpoint: `${stand.gavelUrl}/openrtb2/auction`,
      syncEndpoint: `${stand.gavelUrl}/cookie_sync`,
      timeout: 1000,
      ...s2s,
    }],
    targetingControls: { addTargetingKeys: ['CACHE_ID'] },
    ...extra,
  };
}

export async function openPublisherPage(stand: Stand, scenario: ScenarioPage): Promise<void> {
  await scenario.page.goto(`${stand.site}/page.html`);
  await scenario.page.waitForFunction(() => Boolean((globalThis as any).pbjs?.libLoaded));
}

export function runAuction(scenario: ScenarioPage, setup: Setup): Promise<PageAuction> {
  return scenario.page.evaluate((given) => (globalThis as any).gavelRun(given), setup as never) as Promise<PageAuction>;
}

const bannerUnit = (code: string, bidders: string[]) => ({
  code,
  mediaTypes: { banner: { sizes: [[300, 250]] } },
  bids: bidders.map((bidder) => ({ bidder, params: { placement: code } })),
});

/** The targeting Prebid.js hands the ad server for an ad unit. */
function targetingOf(auction: PageAuction, code: string): Record<string, string> {
  return auction.targeting[code] ?? {};
}

/**
 * Banner: both bidders' bids reach Prebid.js, `getHighestCpmBids` is alpha's, the targeting has Prebid's keys and
 * `hb_cache_id` (whose cached JSON is alpha's bid), and alpha's creative renders in the slot.
 */
export async function bannerScenario(stand: Stand, scenario: ScenarioPage, s2s: Record<string, unknown> = {}): Promise<PageAuction> {
  await openPublisherPage(stand, scenario);
  const auction = await runAuction(scenario, {
    config: publisherConfig(stand, ['alpha', 'beta'], { extPrebid: { cache: { bids: {} } }, ...s2s }),
    adUnits: [bannerUnit('slot-banner', ['alpha', 'beta'])],
    timeout: 2000,
    render: { adUnitCode: 'slot-banner', frameId: 'frame-banner' },
  });
  expect(auction.timedOut, 'Prebid.js timed out').to.equal(false);
  const bids = auction.bids['slot-banner'] ?? [];
  expect(bids.map((bid) => `${bid.bidderCode} ${bid.cpm}`).sort()).to.deep.equal(['alpha 2.5', 'beta 1.2']);
  const highest = auction.highest['slot-banner']!;
  expect(highest.map((bid) => bid.bidderCode)).to.deep.equal(['alpha']);
  expect(highest[0]!.pbsBidId, 'ext.prebid.bidid').to.be.a('string').and.not.equal('');
  const targeting = targetingOf(auction, 'slot-banner');
  expect(targeting).to.include({ hb_bidder: 'alpha', hb_pb: '2.50', hb_size: '300x250', hb_adid: highest[0]!.adId });
  expect(targeting.hb_cache_id, 'hb_cache_id in the targeting').to.match(/^[0-9a-f-]{36}$/);
  const cached = await fetch(`${stand.gavel.url}/cache?uuid=${targeting.hb_cache_id}`);
  expect(cached.status).to.equal(200);
  expect((await cached.json()) as Record<string, unknown>).to.include({ impid: 'slot-banner', price: 2.5 });
  expect(await renderedText(scenario, '#alpha-ad')).to.equal('alpha creative');
  return auction;
}

/** The text of an element of a rendered creative: Prebid.js renders into frames of its own inside the slot's. */
async function renderedText(scenario: ScenarioPage, selector: string): Promise<string | undefined> {
  for (let attempt = 0; attempt < 30; attempt++) {
    for (const frame of scenario.page.frames()) {
      const element = await frame.$(selector).catch(() => null);
      if (element) return (await element.textContent()) ?? undefined;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}
