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
    bidderError: Array<{ bidderCode: string; status?: number; responseText?: string }>;
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
  config?: Record<string, unknown>;
  /** A script of the publisher's calling `pbjs.setConfig` (run instead of `config`). */
  configScript?: string;
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

const videoUnit = (code: string, bidders: string[]) => ({
  code,
  mediaTypes: { video: { context: 'instream', playerSize: [[640, 480]], mimes: ['video/mp4'], protocols: [2, 3, 5, 6], maxduration: 30, api: [2] } },
  bids: bidders.map((bidder) => ({ bidder, params: { placement: code } })),
});

/**
 * Instream video with `cache.vastxml` and no cache of Prebid.js's own: every video bid, the losing one too, arrives
 * with a `vastUrl` on Gavel's cache that answers the bidder's VAST; none is rejected; the GAM video URL carries the
 * winner's cache key.
 */
export async function videoScenario(stand: Stand, scenario: ScenarioPage): Promise<PageAuction> {
  await openPublisherPage(stand, scenario);
  const auction = await runAuction(scenario, {
    config: publisherConfig(stand, ['vida', 'vidb'], { extPrebid: { cache: { vastxml: { returnCreative: false } } } }),
    adUnits: [videoUnit('slot-video', ['vida', 'vidb'])],
    timeout: 2000,
    videoUrlFor: 'slot-video',
    fetchVast: true,
  });
  expect(auction.events.bidRejected, 'bids Prebid.js rejected').to.deep.equal([]);
  const bids = auction.bids['slot-video'] ?? [];
  expect(bids.map((bid) => `${bid.bidderCode} ${bid.cpm} ${bid.mediaType}`).sort()).to.deep.equal(['vida 3 video', 'vidb 1 video']);
  for (const bid of bids) {
    expect(bid.vastUrl, `${bid.bidderCode}'s vastUrl`).to.be.a('string').and.satisfy((url: string) => url.startsWith(`${stand.gavelUrl}/cache?uuid=`));
    expect(auction.fetched[bid.vastUrl!], `the VAST at ${bid.bidderCode}'s vastUrl`).to.equal(vastOf(bid.bidderCode));
  }
  const winner = auction.highest['slot-video']![0]!;
  expect(winner.bidderCode).to.equal('vida');
  const targeting = targetingOf(auction, 'slot-video');
  expect(targeting.hb_uuid).to.equal(winner.videoCacheKey);
  const custParams = new URLSearchParams(new URL(auction.gamVideoUrl!).searchParams.get('cust_params') ?? '');
  expect(custParams.get('hb_uuid')).to.equal(winner.videoCacheKey);
  expect(custParams.get('hb_bidder')).to.equal('vida');
  expect(scenario.console.filter((line) => /vastXml|vastUrl/.test(line))).to.deep.equal([]);
  return auction;
}

/**
 * Native as Prebid.js sends it (its own asset ids, from the legacy `mediaTypes.native` it converts), beside a
 * banner unit on the same page: the native bid's assets come back mapped by id (title to title, image to image),
 * and the banner unit still gets its bids.
 */
export async function nativeScenario(stand: Stand, scenario: ScenarioPage): Promise<PageAuction> {
  await openPublisherPage(stand, scenario);
  const calls = stand.bidder.received.length;
  const auction = await runAuction(scenario, {
    config: publisherConfig(stand, ['nat', 'alpha', 'beta']),
    adUnits: [
      {
        code: 'slot-native',
        mediaTypes: { native: { title: { required: true, len: 80 }, image: { required: true, sizes: [300, 250] }, sponsoredBy: { required: true } } },
        bids: [{ bidder: 'nat', params: {} }],
      },
      bannerUnit('slot-banner', ['alpha', 'beta']),
    ],
    timeout: 2000,
  });
  const sent = stand.bidder.received.slice(calls).find((call) => call.url.includes('name=nat'));
  expect(sent, 'the native bidder was called').to.not.equal(undefined);
  const imp = (sent!.body.imp as Array<Record<string, any>>)[0]!;
  const assets = (JSON.parse(imp.native.request) as { assets: Array<Record<string, any>> }).assets;
  const idOf = (kind: string) => assets.find((asset) => asset[kind] !== undefined && (kind !== 'data' || asset.data.type === 1))!.id as number;
  const native = (auction.bids['slot-native'] ?? [])[0]?.native;
  expect(native?.ortb?.assets?.map((asset: { id: number }) => asset.id), 'the native bid in Prebid.js, its assets').to.deep.equal(assets.map((asset) => asset.id));
  // Prebid.js maps the assets back to what the ad unit asked for by their ids (its legacy native fields).
  expect(native!.title).to.equal(`title of asset ${idOf('title')}`);
  expect(native!.image?.url).to.equal(`https://cdn.example/${idOf('img')}.png`);
  expect(native!.sponsoredBy).to.equal(`data of asset ${idOf('data')}`);
  expect((auction.bids['slot-banner'] ?? []).map((bid) => bid.bidderCode).sort()).to.deep.equal(['alpha', 'beta']);
  return auction;
}

/**
 * User sync: the first auction's `/cookie_sync` (with credentials) offers alpha's sync, Prebid.js fires its pixel,
 * the bidder redirects to Gavel's `/setuid`, the `uids` cookie is kept (SameSite=None; Secure over HTTPS), and the
 * next auction sends alpha `user.buyeruid`.
 */
export async function cookieSyncScenario(stand: Stand, scenario: ScenarioPage): Promise<void> {
  await openPublisherPage(stand, scenario);
  const config = publisherConfig(stand, ['alpha', 'beta'], {}, { userSync: { syncEnabled: true, syncDelay: 0, filterSettings: { image: { bidders: '*', filter: 'include' } } } });
  const setup = { config, adUnits: [bannerUnit('slot-banner', ['alpha', 'beta'])], timeout: 2000 };
  await runAuction(scenario, setup);
  let uids: string | undefined;
  for (let attempt = 0; attempt < 50 && !uids; attempt++) {
    uids = (await scenario.context.cookies(stand.gavelUrl)).find((cookie) => cookie.name === 'uids')?.value;
    if (!uids) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(stand.syncs.length, 'alpha’s sync pixel was loaded').to.be.greaterThan(0);
  expect(uids, 'the uids cookie Gavel set').to.be.a('string');
  const calls = stand.bidder.received.length;
  await runAuction(scenario, setup);
  const alpha = stand.bidder.received.slice(calls).find((call) => call.url.includes('name=alpha'));
  expect((alpha?.body.user as { buyeruid?: string } | undefined)?.buyeruid).to.equal(SYNCED_UID);
  const beta = stand.bidder.received.slice(calls).find((call) => call.url.includes('name=beta'));
  expect((beta?.body.user as { buyeruid?: string } | undefined)?.buyeruid).to.equal(undefined);
}

/** A bidder slower than tmax: the others' bids arrive in time, and its timeout error reaches `bidderDone`. */
export async function slowBidderScenario(stand: Stand, scenario: ScenarioPage): Promise<PageAuction> {
  await openPublisherPage(stand, scenario);
  const auction = await runAuction(scenario, {
    config: publisherConfig(stand, ['alpha', 'slow'], { timeout: 600 }),
    adUnits: [bannerUnit('slot-banner', ['alpha', 'slow'])],
    timeout: 2000,
  });
  expect(auction.timedOut).to.equal(false);
  expect((auction.bids['slot-banner'] ?? []).map((bid) => bid.bidderCode)).to.deep.equal(['alpha']);
  const slow = auction.events.bidderDone.find((done) => done.bidderCode === 'slow');
  expect(slow?.serverErrors.map((error) => error.code)).to.deep.equal([1]);
  expect(auction.elapsedMs).to.be.lessThan(2000);
  return auction;
}

/**
 * An unknown bidder, or bad params for one bidder, beside a good one. Gavel refuses the request as Prebid Server
 * does (400 naming the bidder and the field), so Prebid.js gets no bids from this request: each bidder's
 * `bidderError` carries the 400 and its text, and the console shows the failed call.
 */
export async function refusedRequestScenario(stand: Stand, scenario: ScenarioPage, bad: { bidder: string; params: Record<string, unknown> }): Promise<PageAuction> {
  await openPublisherPage(stand, scenario);
  const auction = await runAuction(scenario, {
    config: publisherConfig(stand, ['alpha', bad.bidder]),
    adUnits: [{
      code: 'slot-banner',
      mediaTypes: { banner: { sizes: [[300, 250]] } },
      bids: [{ bidder: 'alpha', params: {} }, { bidder: bad.bidder, params: bad.params }],
    }],
    timeout: 2000,
  });
  expect(auction.bids['slot-banner'] ?? []).to.deep.equal([]);
  expect(auction.events.bidderError.map((failure) => `${failure.bidderCode} ${failure.status}`).sort()).to.deep.equal([`${bad.bidder} 400`, 'alpha 400'].sort());
  expect(scenario.console.some((line) => line.includes('status of 400'))).to.equal(true);
  return auction;
}

/**
 * amphtml's `callout-vendors.js` URL templates of Prebid Server vendors (`prebidappnexus`, `prebidrubicon`), with the
 * vendor's host replaced by the stand's Gavel: what a Gavel host registers as an RTC vendor looks like these.
 */
export const AMP_VENDOR_TEMPLATES = {
  prebidappnexus: (gavelUrl: string) =>
    `${gavelUrl}/openrtb2/amp?tag_id=PLACEMENT_ID&w=ATTR(width)&h=ATTR(height)&ow=ATTR(data-override-width)&oh=ATTR(data-override-height)&ms=ATTR(data-multi-size)&slot=ATTR(data-slot)&targeting=TGT&curl=CANONICAL_URL&timeout=TIMEOUT&adcid=ADCID&purl=HREF&gdpr_consent=CONSENT_STRING&consent_type=CONSENT_METADATA(consentStringType)&gdpr_applies=CONSENT_METADATA(gdprApplies)&addtl_consent=CONSENT_METADATA(additionalConsent)&account=ACCOUNT_ID`,
  prebidrubicon: (gavelUrl: string) =>
    `${gavelUrl}/openrtb2/amp?tag_id=REQUEST_ID&w=ATTR(width)&h=ATTR(height)&ow=ATTR(data-override-width)&oh=ATTR(data-override-height)&ms=ATTR(data-multi-size)&slot=ATTR(data-slot)&targeting=TGT&curl=CANONICAL_URL&timeout=TIMEOUT&adc=ADCID&purl=HREF&gdpr_consent=CONSENT_STRING&consent_type=CONSENT_METADATA(consentStringType)&gdpr_applies=CONSENT_METADATA(gdprApplies)&addtl_consent=CONSENT_METADATA(additionalConsent)&account=ACCOUNT_ID`,
} as const;

export interface AmpCallout {
  url: string;
  status: number;
  text: string;
}

/** The AMP page's callout to Gavel for one vendor template, the amp-ad given these extra attributes. */
export async function ampCallout(
  stand: Stand,
  scenario: ScenarioPage,
  vendor: keyof typeof AMP_VENDOR_TEMPLATES,
  vendorMacros: Record<string, string>,
  attributes: Record<string, string> = {},
): Promise<AmpCallout> {
  await scenario.page.goto(`${stand.site}/amp.html`);
  return scenario.page.evaluate(
    ([template, macros, attrs]) => (globalThis as any).ampCallout(template, macros, attrs, { timeoutMillis: 1000 }),
    [AMP_VENDOR_TEMPLATES[vendor](stand.gavelUrl), vendorMacros, attributes] as const,
  ) as Promise<AmpCallout>;
}

/** The callout's URL as amphtml builds it, and Gavel's answer: targeting of the winning bid, its cache id included. */
export async function ampScenario(stand: Stand, scenario: ScenarioPage): Promise<AmpCallout> {
  const calls = stand.bidder.received.length;
  const callout = await ampCallout(stand, scenario, 'prebidappnexus', { PLACEMENT_ID: 'amp-sports-top', ACCOUNT_ID: 'pub-1' });
  const query = new URL(callout.url).searchParams;
  expect(Object.fromEntries(query)).to.include({ tag_id: 'amp-sports-top', account: 'pub-1', w: '300', h: '250', slot: '/1234/sports', ow: '', oh: '', ms: '', targeting: '', curl: 'https://news.example/amp-story', timeout: '1000', gdpr_consent: '', consent_type: '' });
  expect(callout.status, callout.text).to.equal(200);
  // Read at all: a credentialed cross-origin answer is readable only when Gavel echoed this origin and allowed credentials.
  const { targeting } = JSON.parse(callout.text) as { targeting: Record<string, string> };
  expect(targeting).to.include({ hb_bidder: 'alpha', hb_pb: '2.50', hb_size: '300x250', hb_bidder_beta: 'beta' });
  expect(targeting.hb_cache_id).to.match(/^[0-9a-f-]{36}$/);
  const sent = stand.bidder.received.slice(calls).find((call) => call.url.includes('name=alpha'))!;
  expect((sent.body.site as { page?: string }).page).to.equal('https://news.example/amp-story');
  return callout;
}

/**
 * docs/prebidjs.md's config, as written there (Gavel's address put in): a banner and an instream video unit get
 * their bids, the banner's targeting has `hb_cache_id`, and each video bid its `vastUrl`.
 */
export async function documentedConfigScenario(stand: Stand, scenario: ScenarioPage, snippet: string): Promise<PageAuction> {
  await openPublisherPage(stand, scenario);
  const auction = await runAuction(scenario, {
    configScript: snippet.replaceAll('https://gavel.example.com', stand.gavelUrl),
    adUnits: [bannerUnit('slot-banner', ['alpha', 'beta']), videoUnit('slot-video', ['vida', 'vidb'])],
    timeout: 2000,
  });
  expect((auction.bids['slot-banner'] ?? []).map((bid) => bid.bidderCode).sort()).to.deep.equal(['alpha', 'beta']);
  expect(targetingOf(auction, 'slot-banner').hb_cache_id, 'hb_cache_id').to.match(/^[0-9a-f-]{36}$/);
  const videoBids = auction.bids['slot-video'] ?? [];
  expect(videoBids.map((bid) => bid.bidderCode).sort()).to.deep.equal(['vida', 'vidb']);
  for (const bid of videoBids) expect(bid.vastUrl, `${bid.bidderCode}'s vastUrl`).to.be.a('string');
  return auction;
}
