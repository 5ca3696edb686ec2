import { expect } from 'chai';
import { bannerRequest, postJson, useGavelWithBidders } from '../support/gavel.js';

describe('POST /openrtb2/auction end to end, against a real local bidder', () => {
  const servers = useGavelWithBidders({ alpha: 'name=alpha&price=1.25', beta: 'name=beta&price=2.37', sleepy: 'hang=1', broken: 'status=500' });

  it('returns both seats, the winner targeting and response times', async () => {
    const { status, json } = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ alpha: { zone: 1 }, beta: { zone: 2 } }, { ext: { prebid: { targeting: {} } } }));
    expect(status).to.equal(200);
    const seats = json.seatbid.map((seat: { seat: string }) => seat.seat).sort();
    expect(seats).to.deep.equal(['alpha', 'beta']);
    const beta = json.seatbid.find((seat: { seat: string }) => seat.seat === 'beta').bid[0];
    expect(beta.ext.prebid.targeting).to.include({ hb_pb: '2.30', hb_bidder: 'beta', hb_size: '300x250' });
    const alpha = json.seatbid.find((seat: { seat: string }) => seat.seat === 'alpha').bid[0];
    expect(alpha.ext.prebid.targeting).to.not.have.property('hb_pb');
    expect(alpha.ext.prebid.targeting).to.include({ hb_pb_alpha: '1.20' });
    expect(json.ext.responsetimemillis).to.have.all.keys('alpha', 'beta');
  });

  it('sends each bidder only its own params in imp.ext.bidder', async () => {
    servers.bidder.received.length = 0;
    await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ alpha: { zone: 1 }, beta: { zone: 2 } }));
    const alphaCall = servers.bidder.received.find((call) => call.url.includes('name=alpha'))!;
    // Its own params, and the transaction id the endpoint gave the imp.
    expect((alphaCall.body.imp as any[])[0].ext).to.deep.include({ bidder: { zone: 1 } }).and.have.all.keys('bidder', 'tid');
  });

  it('a hanging bidder costs only its own bids, and the answer comes within tmax + 100 ms', async () => {
    const tmax = 300;
    const { status, json, elapsedMs } = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {}, sleepy: {}, broken: {} }, { tmax }));
    expect(status).to.equal(200);
    expect(elapsedMs).to.be.below(tmax + 100);
    expect(json.seatbid.map((seat: { seat: string }) => seat.seat)).to.deep.equal(['alpha']);
    expect(json.ext.errors.sleepy[0].code).to.equal(1);
    expect(json.ext.errors.broken[0].code).to.equal(3);
  });
});
