import { expect } from 'chai';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { bannerRequest, postJson, startGavel, type RunningGavel } from '../support/gavel.js';

/** The members of an auction answer Prebid Server writes whatever the bids: `ext.prebid`'s timestamp, tmax, empty answers. */
describe('POST /openrtb2/auction answer members', () => {
  let bidder: MockBidder;
  let gavel: RunningGavel;
  let blocking: RunningGavel;

  before(async () => {
    bidder = await startMockBidder();
    const bidders = {
      alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1.00` },
      silent: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=silent&status=204` },
    };
    gavel = await startGavel({ bidders, auction: { defaultTmaxMs: 800, maxTmaxMs: 1000 } });
    // Bidders screened out by the account's activity controls: alpha and silent are never asked, beta is.
    const fetchBids = { rules: [{ allow: false, condition: { componentName: ['alpha', 'silent'] } }] };
    blocking = await startGavel({
      bidders: { ...bidders, beta: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=beta&price=2.00` } },
      accounts: { defaults: { privacy: { allowactivities: { fetchBids } } } },
    });
  });
  after(async () => {
    await gavel?.close();
    await blocking?.close();
    await bidder?.close();
  });

  it('carries ext.prebid.auctiontimestamp, the epoch milliseconds the auction started at', async () => {
    const before = Date.now();
    const { json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }, { ext: { prebid: {} } }));
    expect(json.ext.prebid.auctiontimestamp).to.be.a('number').within(before - 1, Date.now());
    expect(Number.isInteger(json.ext.prebid.auctiontimestamp)).to.equal(true);
  });

  it('answers in the namespace of the request: ext.svc.auctiontimestamp', async () => {
    const { json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }, { ext: { svc: { targeting: {} } } }));
    expect(json.ext.svc.auctiontimestamp).to.be.a('number');
    expect(json.ext).to.not.have.property('prebid');
  });

  it('leaves seatbid out when no bidder bid, as Prebid Server (omitempty) does', async () => {
    const { status, json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ silent: {} }));
    expect(status).to.equal(200);
    expect(json).to.not.have.property('seatbid');
    expect(json.ext.responsetimemillis).to.have.all.keys('silent');
  });

  it('states in tmaxrequest the tmax the request asked for, even above the host cap on the wait', async () => {
    const asked = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }, { tmax: 5000 }));
    expect(asked.json.ext.tmaxrequest).to.equal(5000);
    const { tmax: _none, ...withoutTmax } = bannerRequest({ alpha: {} });
    const defaulted = await postJson(`${gavel.url}/openrtb2/auction`, withoutTmax);
    expect(defaulted.json.ext.tmaxrequest).to.equal(800);
  });

  it('has no responsetimemillis when no bidder was asked (nbr 2)', async () => {
    // A debug answer says the request's floors are off: a warning of the auction's own, which needs a bidder asked.
    const { status, json } = await postJson(`${blocking.url}/openrtb2/auction`, bannerRequest({ alpha: {} }, { test: 1, ext: { prebid: { floors: { enabled: false } } } }));
    expect(status).to.equal(200);
    expect(json.nbr).to.equal(2);
    expect(json).to.not.have.property('seatbid');
    expect(json.ext).to.not.have.property('responsetimemillis');
    expect(json.ext.tmaxrequest).to.equal(500);
    // The screening's warnings are the auction's own, written only beside a bidder asked (Prebid Server's errList).
    expect(json.ext.warnings ?? {}).to.not.have.property('prebid');
    expect(json.ext).to.not.have.property('errors');
  });

  it("writes the auction's own warnings with an errors list for the same scope, empty when it has none, as Prebid Server does", async () => {
    const { json } = await postJson(`${blocking.url}/openrtb2/auction`, bannerRequest({ alpha: {}, beta: {} }, { ext: { prebid: {} } }));
    expect(json.ext.responsetimemillis).to.have.all.keys('beta');
    expect(json.ext.warnings.prebid).to.deep.equal([{ code: 10017, message: 'bidder "alpha" blocked by privacy settings' }]);
    expect(json.ext.errors).to.deep.equal({ prebid: [] });
  });
});
