import { expect } from 'chai';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { bannerRequest, postJson, startGavel, type RunningGavel } from '../support/gavel.js';

function cachingSuite(label: string, extraConfig: () => Record<string, unknown> | undefined) {
  describe(`hb_cache_id resolves through GET /cache?uuid= (${label})`, function () {
    let bidder: MockBidder;
    let gavel: RunningGavel;

    before(async function () {
      const extra = extraConfig();
      if (extra === undefined) this.skip();
      bidder = await startMockBidder();
      gavel = await startGavel({
        ...extra,
        bidders: {
          alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1.50` },
          beta: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=beta&price=0.75` },
        },
      });
    });
    after(async () => {
      await gavel?.close();
      await bidder?.close();
    });

    it('caches the winner and each bidder best, and serves the bid JSON back', async () => {
      const request = bannerRequest({ alpha: {}, beta: {} }, { ext: { prebid: { targeting: {}, cache: { bids: {} } } } });
      const { json } = await postJson(`${gavel.url}/openrtb2/auction`, request);
      const alpha = json.seatbid.find((seat: any) => seat.seat === 'alpha').bid[0];
      const beta = json.seatbid.find((seat: any) => seat.seat === 'beta').bid[0];
      const winnerId = alpha.ext.prebid.targeting.hb_cache_id;
      expect(winnerId).to.be.a('string');
      expect(beta.ext.prebid.targeting).to.not.have.property('hb_cache_id');
      const cached = await fetch(`${gavel.url}/cache?uuid=${winnerId}`);
      expect(cached.status).to.equal(200);
      expect(cached.headers.get('content-type')).to.contain('application/json');
      const body = await cached.json();
      expect(body).to.include({ id: alpha.id, impid: 'imp-1', price: 1.5 });
      const betaCached = await fetch(`${gavel.url}/cache?uuid=${beta.ext.prebid.targeting.hb_cache_id_beta}`);
      expect(((await betaCached.json()) as { price: number }).price).to.equal(0.75);
    });

    it('an unknown uuid is a 404 and a missing one a 400', async () => {
      expect((await fetch(`${gavel.url}/cache?uuid=00000000-0000-0000-0000-000000000000`)).status).to.equal(404);
      expect((await fetch(`${gavel.url}/cache`)).status).to.equal(400);
    });
  });
}

cachingSuite('embedded in-process store', () => ({}));
cachingSuite('embedded Redis-backed store', () => (process.env.GAVEL_TEST_REDIS ? { cache: { redis: { url: process.env.GAVEL_TEST_REDIS, keyPrefix: `gavel-test-${process.pid}:` } } } : undefined));

describe('a cache that is down never fails the auction', () => {
  let bidder: MockBidder;
  let gavel: RunningGavel;
  before(async () => {
    bidder = await startMockBidder();
    gavel = await startGavel({
      cache: { url: 'http://127.0.0.1:9/cache', publicUrl: 'http://127.0.0.1:9/cache' },
      bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1.50` } },
    });
  });
  after(async () => {
    await gavel?.close();
    await bidder?.close();
  });

  it('answers 200 with the bid and targeting, and no cache keys', async () => {
    const request = bannerRequest({ alpha: {} }, { ext: { prebid: { targeting: {}, cache: { bids: {} } } } });
    const { status, json } = await postJson(`${gavel.url}/openrtb2/auction`, request);
    expect(status).to.equal(200);
    const targeting = json.seatbid[0].bid[0].ext.prebid.targeting;
    expect(targeting.hb_pb).to.equal('1.50');
    expect(targeting).to.not.have.property('hb_cache_id');
  });
});
