import { expect } from 'chai';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { bannerRequest, postJson, startGavel, useGavelWithBidders, type RunningGavel } from '../support/gavel.js';

type Json = Record<string, any>;

// Prebid Server answers nbr 2 (invalid request) when it has no live bidder: every one blocked by privacy, or its split
// failed. A bidder whose adapter cannot take the imps' media types is still live there (its adapter refuses them).
describe('no live bidder: nbr 2', () => {
  describe('every bidder blocked by privacy', () => {
    const servers = useGavelWithBidders({ alpha: 'name=alpha&price=1' }, { privacy: { allowActivities: { fetchBids: { default: false } } } });

    it('answers nbr 2 and asks nobody', async () => {
      const before = servers.bidder.received.length;
      const { json } = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }));
      expect(servers.bidder.received.length).to.equal(before);
      expect((json as Json).nbr).to.equal(2);
    });
  });

  describe('a bidder left out for the media types it cannot take', () => {
    let bidder: MockBidder;
    let gavel: RunningGavel;
    before(async () => {
      bidder = await startMockBidder();
      // appnexus takes no audio: the split sends it nothing, yet Prebid Server counts it live.
      gavel = await startGavel({ bidders: { apn: { adapter: 'appnexus', endpoint: `${bidder.url}/rtb?name=apn&price=1` } } });
    });
    after(async () => {
      await gavel?.close();
      await bidder?.close();
    });

    it('answers without nbr', async () => {
      const request = { id: 'r-audio', site: { page: 'https://publisher.example/' }, tmax: 500, imp: [{ id: 'a', audio: { mimes: ['audio/mp4'] }, ext: { apn: { placementId: 1 } } }] };
      const { json } = await postJson(`${gavel.url}/openrtb2/auction`, request);
      expect(json as Json).to.not.have.property('nbr');
    });
  });
});
