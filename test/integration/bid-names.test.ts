import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { bannerRequest, postJson, startGavel, useGavelWithBidders, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';

/** Bids no answer may carry are dropped with a code; names from requests and bids are plain names. */
describe('bids and names', () => {
  const servers = useGavelWithBidders({
    negative: 'name=negative&price=-1',
    repeats: 'name=repeats&prices=2,1.5&bidid=same',
    reused: 'name=reused&price=1&bidid=same',
    fine: 'name=fine&price=1',
  });
  const auction = (body: Record<string, unknown>) => postJson(`${servers.gavel.url}/openrtb2/auction`, body);

  it('drops a negative price with a code-3 error naming the bid, keeping the other bidders', async () => {
    const { json } = await auction(bannerRequest({ negative: {}, fine: {} }));
    expect(json.seatbid.map((seat: { seat: string }) => seat.seat)).to.deep.equal(['fine']);
    expect(json.ext.errors.negative).to.deep.equal([{ code: 3, message: 'Bid "negative-bid-0" has price -1: a bid needs a finite, non-negative price; dropped' }]);
  });

  it('drops a bid that repeats an earlier bid id of the same bidder, with a code-3 error', async () => {
    const { json } = await auction(bannerRequest({ repeats: {} }));
    expect(json.seatbid[0].bid).to.have.length(1);
    expect(json.seatbid[0].bid[0].price).to.equal(2);
    expect(json.ext.errors.repeats).to.deep.equal([{ code: 3, message: 'Bid "same" repeats the id of an earlier bid of this bidder in imp "imp-1"; dropped' }]);
  });

  it('keeps one id in two imps: two different bids, as Prebid Server does', async () => {
    const request = bannerRequest({ reused: {} });
    const imp = (request.imp as Array<Record<string, unknown>>)[0]!;
    request.imp = [imp, { ...imp, id: 'imp-2' }];
    const { json } = await auction(request);
    expect(json.seatbid[0].bid.map((bid: { impid: string }) => bid.impid).sort()).to.deep.equal(['imp-1', 'imp-2']);
    expect(json.ext.errors).to.equal(undefined);
  });

  for (const alias of ['__proto__', 'a b', '<script>', 'x'.repeat(65)]) {
    it(`refuses the alias name ${JSON.stringify(alias.slice(0, 20))} with a 400 naming the rule`, async () => {
      const { status, text } = await auction(bannerRequest({ fine: {} }, { ext: { prebid: { aliases: { [alias]: 'fine' } } } }));
      expect(status, text).to.equal(400);
      expect(text).to.contain('is not a valid alias name: use 1 to 64 letters, digits');
    });
  }
});

describe('seat names from bids', () => {
  const seatEcho = fileURLToPath(new URL('../fixtures/adapters/seat-echo/', import.meta.url));
  let bidder: MockBidder;
  let gavel: RunningGavel;
  before(async () => {
    bidder = await startMockBidder();
    gavel = await startGavel({ plugins: [seatEcho], bidders: { sneaky: { adapter: 'seatecho', endpoint: `${bidder.url}/rtb?name=sneaky&price=3&seat=__proto__` } } });
  });
  after(async () => {
    await gavel?.close();
    await bidder?.close();
  });

  it('never takes __proto__ as a seat, whatever the alternate bidder codes allow', async () => {
    const request = bannerRequest({ sneaky: {} }, { ext: { prebid: { alternatebiddercodes: { enabled: true, bidders: { sneaky: { enabled: true, allowedbiddercodes: ['*'] } } } } } });
    const { status, json } = await postJson(`${gavel.url}/openrtb2/auction`, request);
    expect(status).to.equal(200);
    expect(json.seatbid, "no seat: Prebid Server leaves seatbid out").to.equal(undefined);
    expect(json.ext.warnings.sneaky[0].message).to.contain('invalid biddercode "__proto__"');
  });
});
