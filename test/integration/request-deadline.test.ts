import { expect } from 'chai';
import type { CacheStore } from '../../core/cache/index.js';
import { MemoryFetcher } from '../../core/stored/index.js';
import { postJson, replacing, startGavel, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';

/** A cache store whose puts answer only after 3 s: any step that waits for it past the deadline shows. */
const slowStore: CacheStore = {
  put: (entries) => new Promise((resolve) => setTimeout(() => resolve(entries.map((_, i) => `late-${i}`)), 3000).unref()),
  get: async () => undefined,
  close: async () => undefined,
};

/** The response budget the host keeps beyond tmax, plus scheduling slack on a loaded machine. */
const RESPONSE_BUDGET_MS = 150;

describe('the request deadline comes from the merged request', () => {
  let bidder: MockBidder;
  let gavel: RunningGavel;

  before(async () => {
    bidder = await startMockBidder();
    const stored = new MemoryFetcher({
      requests: {
        'short-tmax': {
          tmax: 200,
          site: { page: 'https://publisher.example/' },
          imp: [{ id: 'i1', banner: { format: [{ w: 300, h: 250 }] }, ext: { alpha: {}, sleepy: {} } }],
          ext: { prebid: { targeting: {}, cache: { bids: {} } } },
        },
      },
    });
    gavel = await startGavel(
      {
        bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1.5` }, sleepy: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?hang=1` } },
        auction: { defaultTmaxMs: 2000, maxTmaxMs: 3000 },
      },
      { configure: replacing({ stored, cacheStore: slowStore }) },
    );
  });
  after(async () => {
    await gavel?.close();
    await bidder?.close();
  });

  it('with tmax only in the stored request, bidders and the cache put follow it: the answer comes within tmax plus the response budget', async () => {
    const answer = await postJson(`${gavel.url}/openrtb2/auction`, { id: 'r1', ext: { prebid: { storedrequest: { id: 'short-tmax' } } } });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json.ext.tmaxrequest).to.equal(200);
    expect(answer.elapsedMs).to.be.below(200 + RESPONSE_BUDGET_MS);
    // The bidder that hung timed out at the stored tmax; the cache put that never came back left no key.
    expect(answer.json.ext.errors.sleepy[0].code).to.equal(1);
    const targeting = answer.json.seatbid[0].bid[0].ext.prebid.targeting;
    expect(targeting.hb_pb).to.equal('1.50');
    expect(targeting).to.not.have.property('hb_cache_id');
  });
});
