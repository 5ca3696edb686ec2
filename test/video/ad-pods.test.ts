import { expect } from 'chai';
import { DEFAULT_PRICE_GRANULARITY, type AuctionBid, type Bid, type MediaType, type SeatResult } from '../../core/api/index.js';
import { EmbeddedCacheClient, MemoryCacheStore } from '../../core/cache/index.js';
import { buildAdPods, type PodRules } from '../../core/video/ad-pods.js';
import type { PlannedPod } from '../../core/video/openrtb-request.js';

/**
 * The pod assembly on its own, with bids as the auction hands them over and a real in-memory bid cache: the cases
 * the end-to-end tests cannot provoke through a bidder (a bidder's second bid in one imp, several categories on
 * one bid, a non-video bid, a cache that misses its deadline).
 */

const pod: PlannedPod = { index: 0, pod: { podid: 1, adpoddurationsec: 30, configid: 'c' }, impIds: ['1_0', '1_1'], bidders: new Set(['alpha', 'beta']) };

function auctionBid(bidder: string, bid: Partial<Bid> & { id: string }, extra: { type?: MediaType; cacheId?: string; duration?: number } = {}): AuctionBid {
  const fullBid: Bid = { impid: '1_0', price: 1, adm: `<VAST version="3.0"><Ad id="${bid.id}"/></VAST>`, ...bid };
  if (extra.cacheId) fullBid.ext = { svc: { cache: { vastXml: { cacheId: extra.cacheId } } } };
  return {
    bid: fullBid,
    type: extra.type ?? 'video',
    video: { duration: extra.duration ?? 15, primaryCategory: bid.cat?.[0] },
    bidder,
    adapter: 'ortb',
    originalPrice: fullBid.price,
    originalCurrency: 'USD',
    targeting: {},
    winner: false,
    bidderBest: false,
  };
}

const seat = (bidder: string, bids: AuctionBid[]): SeatResult => ({ bidder, adapter: 'ortb', bids, errors: [], responseTimeMs: 1 });

const rules = (overrides: Partial<PodRules> = {}): PodRules => ({
  allowed: [15, 30],
  requireExact: false,
  granularity: DEFAULT_PRICE_GRANULARITY,
  namespace: 'svc',
  ...overrides,
});

describe('video ad pod assembly', () => {
  let store: MemoryCacheStore;
  let client: EmbeddedCacheClient;
  beforeEach(() => {
    store = new MemoryCacheStore();
    client = new EmbeddedCacheClient(store);
  });
  const request = { id: 'r', imp: [{ id: '1_0', exp: 120 }, { id: '1_1' }] };
  const future = () => ({ client, deadline: Date.now() + 1000 });

  it('keeps the cache id the auction gave a bid, and caches the VAST of a bid that has none', async () => {
    const [adPod] = await buildAdPods(
      [pod],
      [seat('alpha', [auctionBid('alpha', { id: 'a1', price: 2 }, { cacheId: 'from-auction' }), auctionBid('alpha', { id: 'a2', price: 1.5 })])],
      {},
      request,
      rules(),
      future(),
    );
    expect(adPod!.targeting.map((entry) => entry.hb_pb)).to.deep.equal(['2.00', '1.50']);
    expect(adPod!.targeting[0]!.hb_cache_id).to.equal('from-auction');
    const cached = await store.get(adPod!.targeting[1]!.hb_cache_id);
    expect(cached).to.deep.equal({ type: 'xml', value: '<VAST version="3.0"><Ad id="a2"/></VAST>' });
  });

  it('wraps the nurl of a bid without markup in VAST', async () => {
    const [adPod] = await buildAdPods([pod], [seat('alpha', [auctionBid('alpha', { id: 'n1', adm: undefined, nurl: 'https://dsp.example/vast?id=1' })])], {}, request, rules(), future());
    const cached = await store.get(adPod!.targeting[0]!.hb_cache_id);
    expect(cached?.value).to.include('<VASTAdTagURI><![CDATA[https://dsp.example/vast?id=1]]></VASTAdTagURI>');
  });

  it('leaves out a bid whose VAST cannot be cached in time, with an error', async () => {
    const [adPod] = await buildAdPods([pod], [seat('alpha', [auctionBid('alpha', { id: 'late' })])], {}, request, rules(), { client, deadline: Date.now() - 1 });
    expect(adPod!.targeting).to.deep.equal([]);
    expect(adPod!.errors).to.deep.equal({ alpha: [{ code: 999, message: 'bid late left out: its VAST could not be cached' }] });
  });

  it('rejects non-video bids, bids without VAST, and, with categories on, bids with no or several categories', async () => {
    const mapping = new Map([['IAB17', { id: 'sports' }]]);
    const [adPod] = await buildAdPods(
      [pod],
      [
        seat('alpha', [
          auctionBid('alpha', { id: 'banner', cat: ['IAB17'] }, { type: 'banner' }),
          auctionBid('alpha', { id: 'empty', cat: ['IAB17'], adm: '' }),
          auctionBid('alpha', { id: 'none' }),
          auctionBid('alpha', { id: 'two', cat: ['IAB17', 'IAB1'] }),
          auctionBid('alpha', { id: 'unknown', cat: ['IAB99'] }),
          auctionBid('alpha', { id: 'good', cat: ['IAB17'] }, { cacheId: 'u' }),
        ]),
      ],
      {},
      request,
      rules({ categories: { adServer: 'freewheel', mapping } }),
      future(),
    );
    expect(adPod!.targeting).to.deep.equal([{ hb_pb: '1.00', hb_pb_cat_dur: '1.00_sports_15s', hb_cache_id: 'u' }]);
    const messages = adPod!.errors!.alpha!.map((error) => `${error.code} ${error.message}`);
    expect(messages).to.deep.equal([
      '3 bid banner rejected: it is a banner bid; ad pods take video bids only',
      '3 bid empty rejected: it has no VAST (neither adm nor nurl)',
      '3 bid none rejected: it carries no IAB category (bid.cat), which category translation needs',
      '3 bid two rejected: it carries 2 IAB categories (IAB17, IAB1); category translation needs exactly one',
      "3 bid unknown rejected: its IAB category IAB99 has no freewheel category in this host's mapping",
    ]);
  });

  it('deduplicates by translated category across bidders; on equal prices the earlier bid stays', async () => {
    const mapping = new Map([['IAB1-5', { id: 'screen' }], ['IAB1-7', { id: 'screen' }]]);
    const [adPod] = await buildAdPods(
      [pod],
      [
        seat('alpha', [auctionBid('alpha', { id: 'movie', price: 4, cat: ['IAB1-5'] }, { cacheId: 'm' })]),
        seat('beta', [auctionBid('beta', { id: 'tv', price: 4, cat: ['IAB1-7'] }, { cacheId: 't' })]),
      ],
      {},
      request,
      rules({ categories: { adServer: 'freewheel', mapping } }),
      future(),
    );
    expect(adPod!.targeting.map((entry) => entry.hb_cache_id)).to.deep.equal(['m']);
    expect(adPod!.errors!.beta![0]).to.deep.include({ code: 0 });
    expect(adPod!.errors!.beta![0]!.message).to.include('bid tv deduplicated: bid movie of alpha has the same category (screen)');
  });

  it("places the auction's per-bidder errors under the pods that bidder was offered", async () => {
    const other: PlannedPod = { index: 1, pod: { podid: 2, adpoddurationsec: 30, configid: 'd' }, impIds: ['2_0'], bidders: new Set(['gamma']) };
    const adPods = await buildAdPods([pod, other], [], { Beta: [{ code: 1, message: 'timeout' }], 'some-module': [{ code: 999, message: 'x' }] }, request, rules(), future());
    expect(adPods[0]!.errors).to.deep.equal({ Beta: [{ code: 1, message: 'timeout' }], 'some-module': [{ code: 999, message: 'x' }] });
    expect(adPods[1]!.errors).to.deep.equal({ 'some-module': [{ code: 999, message: 'x' }] });
  });
});
