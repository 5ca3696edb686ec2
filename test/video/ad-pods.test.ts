import { expect } from 'chai';
import type { AuctionBid, Bid, MediaType, SeatResult } from '../../core/api/index.js';
import { EmbeddedCacheClient, MemoryCacheStore } from '../../core/cache/index.js';
import { buildAdPods, type AuctionReport, type PodServices } from '../../core/video/ad-pods.js';
import { createBidCache, DEFAULT_BID_CACHE_CONFIG } from '../../plugins/gavel.bid-cache/bid-cache.js';
import { createTargeting } from '../../plugins/gavel.targeting/targeting.js';
import { testContext } from '../../core/api/testing.js';
import type { PlannedPod } from '../../core/video/openrtb-request.js';

/**
 * The pod assembly on its own, with bids as the auction hands them over and a real in-memory bid cache: the cases
 * the end-to-end tests cannot provoke through a bidder (a bidder's second bid in one imp, several categories on
 * one bid, a non-video bid, a cache that misses its deadline).
 */

const pod: PlannedPod = { index: 0, pod: { podid: 1, adpoddurationsec: 30, configid: 'c' }, impIds: ['1_0', '1_1'], bidders: new Set(['alpha', 'beta']) };

function auctionBid(bidder: string, bid: Partial<Bid> & { id: string }, extra: { type?: MediaType; cacheId?: string; duration?: number } = {}): AuctionBid {
  const fullBid: Bid = { impid: '1_0', price: 1, adm: `<VAST version="3.0"><Ad id="${bid.id}"/></VAST>`, ...bid };
  return {
    ...(extra.cacheId ? { cache: { vastXml: { cacheId: extra.cacheId } } } : {}),
    bid: fullBid,
    type: extra.type ?? 'video',
    video: { duration: extra.duration ?? 15, primaryCategory: bid.cat?.[0] },
    bidder,
    adapter: 'ortb',
    originalPrice: fullBid.price,
    originalCurrency: 'USD',
    targeting: {},
    winner: false,
    // As the auction hands bids over: each here is its bidder's best in its imp unless a test says otherwise.
    bidderBest: true,
  };
}

const seat = (bidder: string, bids: AuctionBid[]): SeatResult => ({ bidder, adapter: 'ortb', bids, errors: [], responseTimeMs: 1 });

const NOTHING_REPORTED: AuctionReport = { errors: {}, rejected: [] };

describe('video ad pod assembly', () => {
  let store: MemoryCacheStore;
  let client: EmbeddedCacheClient;
  beforeEach(() => {
    store = new MemoryCacheStore();
    client = new EmbeddedCacheClient(store);
  });
  const request = { id: 'r', imp: [{ id: '1_0', exp: 120 }, { id: '1_1' }] };
  /** The built-in targeting and bid-caching services over the test's store, cache puts due by `deadline`. */
  const services = (deadline: number): PodServices => ({
    targeting: createTargeting({}),
    cache: createBidCache(DEFAULT_BID_CACHE_CONFIG, { cachePut: (values, putDeadline) => client.put(values, putDeadline) }),
    context: testContext({ namespace: 'svc', deadline }),
  });
  const future = () => services(Date.now() + 1000);

  it('keeps the cache id the auction gave a bid, and caches the VAST of a bid that has none', async () => {
    const [adPod] = await buildAdPods(
      [pod],
      [seat('alpha', [auctionBid('alpha', { id: 'a1', price: 2 }, { cacheId: 'from-auction' }), auctionBid('alpha', { id: 'a2', price: 1.5, impid: '1_1' })])],
      NOTHING_REPORTED,
      request,
      future(),
    );
    expect(adPod!.targeting.map((entry) => entry.hb_pb)).to.deep.equal(['2.00', '1.50']);
    expect(adPod!.targeting[0]!.hb_cache_id).to.equal('from-auction');
    const cached = await store.get(adPod!.targeting[1]!.hb_cache_id);
    expect(cached).to.deep.equal({ type: 'xml', value: '<VAST version="3.0"><Ad id="a2"/></VAST>' });
  });

  it("targets only a bidder's best bid in each imp: its lower bid for the same imp is left out, as in Prebid Server", async () => {
    const [adPod] = await buildAdPods(
      [pod],
      [
        seat('alpha', [auctionBid('alpha', { id: 'top', price: 5, cat: ['IAB17'] }, { cacheId: 'u1' }), { ...auctionBid('alpha', { id: 'second', price: 4, cat: ['IAB1'] }), bidderBest: false }]),
        seat('beta', [auctionBid('beta', { id: 'other', price: 3 }, { cacheId: 'u2' })]),
      ],
      NOTHING_REPORTED,
      request,
      future(),
    );
    expect(adPod!.targeting.map((entry) => entry.hb_cache_id)).to.deep.equal(['u1', 'u2']);
    expect(adPod).to.not.have.property('errors');
  });

  it('gives a deal bid its hb_deal, and no other bid one', async () => {
    const [adPod] = await buildAdPods(
      [pod],
      [seat('alpha', [auctionBid('alpha', { id: 'deal', price: 5, dealid: 'D1' }, { cacheId: 'u1' }), auctionBid('alpha', { id: 'open', price: 4, impid: '1_1', dealid: '' }, { cacheId: 'u2' })])],
      NOTHING_REPORTED,
      request,
      future(),
    );
    expect(adPod!.targeting).to.deep.equal([
      { hb_pb: '5.00', hb_pb_cat_dur: '5.00_15s', hb_cache_id: 'u1', hb_deal: 'D1' },
      { hb_pb: '4.00', hb_pb_cat_dur: '4.00_15s', hb_cache_id: 'u2' },
    ]);
  });

  it('wraps the nurl of a bid without markup in VAST', async () => {
    const [adPod] = await buildAdPods([pod], [seat('alpha', [auctionBid('alpha', { id: 'n1', adm: undefined, nurl: 'https://dsp.example/vast?id=1' })])], NOTHING_REPORTED, request, future());
    const cached = await store.get(adPod!.targeting[0]!.hb_cache_id);
    expect(cached?.value).to.include('<VASTAdTagURI><![CDATA[https://dsp.example/vast?id=1]]></VASTAdTagURI>');
  });

  it('leaves out a bid whose VAST cannot be cached in time, with an error', async () => {
    const [adPod] = await buildAdPods([pod], [seat('alpha', [auctionBid('alpha', { id: 'late' })])], NOTHING_REPORTED, request, services(Date.now() - 1));
    expect(adPod!.targeting).to.deep.equal([]);
    expect(adPod!.errors).to.deep.equal({ alpha: [{ code: 999, message: 'bid late left out: its VAST could not be cached' }] });
  });

  it('rejects non-video bids and bids without VAST, each under its pod', async () => {
    const [adPod] = await buildAdPods(
      [pod],
      [
        seat('alpha', [
          auctionBid('alpha', { id: 'banner' }, { type: 'banner' }),
          auctionBid('alpha', { id: 'empty', adm: '' }),
          { ...auctionBid('alpha', { id: 'good' }, { cacheId: 'u' }), categoryDuration: '1.00_sports_15s' },
        ]),
      ],
      NOTHING_REPORTED,
      request,
      future(),
    );
    expect(adPod!.targeting).to.deep.equal([{ hb_pb: '1.00', hb_pb_cat_dur: '1.00_sports_15s', hb_cache_id: 'u' }]);
    const messages = adPod!.errors!.alpha!.map((error) => `${error.code} ${error.message}`);
    expect(messages).to.deep.equal([
      '3 bid banner rejected: it is a banner bid; ad pods take video bids only',
      '3 bid empty rejected: it has no VAST (neither adm nor nurl)',
    ]);
  });

  it('reports the bids the auction left out under their own pod, and not again under the bidder', async () => {
    const other: PlannedPod = { index: 1, pod: { podid: 2, adpoddurationsec: 30, configid: 'd' }, impIds: ['2_0'], bidders: new Set(['alpha']) };
    const dropped = auctionBid('alpha', { id: 'dup', impid: '2_0' });
    const error = { code: 0, message: 'bid dup deduplicated: ...' };
    const adPods = await buildAdPods([pod, other], [], { errors: { alpha: [error, { code: 1, message: 'timeout' }] }, rejected: [{ bid: dropped, reason: 300, error }] }, request, future());
    expect(adPods[0]!.errors).to.deep.equal({ alpha: [{ code: 1, message: 'timeout' }] });
    expect(adPods[1]!.errors).to.deep.equal({ alpha: [error, { code: 1, message: 'timeout' }] });
  });

  it("places the auction's per-bidder errors under the pods that bidder was offered", async () => {
    const other: PlannedPod = { index: 1, pod: { podid: 2, adpoddurationsec: 30, configid: 'd' }, impIds: ['2_0'], bidders: new Set(['gamma']) };
    const adPods = await buildAdPods([pod, other], [], { errors: { Beta: [{ code: 1, message: 'timeout' }], 'some-module': [{ code: 999, message: 'x' }] }, rejected: [] }, request, future());
    expect(adPods[0]!.errors).to.deep.equal({ Beta: [{ code: 1, message: 'timeout' }], 'some-module': [{ code: 999, message: 'x' }] });
    expect(adPods[1]!.errors).to.deep.equal({ 'some-module': [{ code: 999, message: 'x' }] });
  });
});
