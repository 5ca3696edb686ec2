import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postJson, startGavel, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';

/** Stored auction and bid responses from the stored-data backend (`responses/<id>.json`), end to end. */
describe('stored auction responses and stored bid responses', () => {
  let dir: string;
  let bidder: MockBidder;
  let gavel: RunningGavel;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gavel-stored-responses-'));
    mkdirSync(join(dir, 'responses'));
    const write = (id: string, document: unknown) => writeFileSync(join(dir, 'responses', `${id}.json`), JSON.stringify(document));
    write('whole-auction', [{ seat: 'alpha', bid: [{ id: 'stored-a', impid: 'ignored', price: 3.33, w: 300, h: 250, crid: 'c', mtype: 1 }] }]);
    write('alpha-answer', { id: 'any', cur: 'USD', seatbid: [{ bid: [{ id: 'stored-bid', impid: 'placeholder', price: 4.4, w: 300, h: 250, crid: 's', mtype: 1 }] }] });
    bidder = await startMockBidder();
    gavel = await startGavel({
      bidders: {
        alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1&mtype=1` },
        beta: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=beta&price=2&mtype=1` },
      },
      storedRequests: { filesystem: { dir } },
    });
  });
  after(async () => {
    await gavel?.close();
    await bidder?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const imp = (id: string, prebid: Record<string, unknown> = {}) => ({ id, banner: { format: [{ w: 300, h: 250 }] }, ext: { prebid: { bidder: { alpha: {}, beta: {} }, ...prebid } } });
  const auction = (imps: unknown[]) => postJson(`${gavel.url}/openrtb2/auction`, { id: 'r', site: { page: 'https://p.example' }, imp: imps, tmax: 500, ext: { prebid: { targeting: {} } } });

  it('answers the auction from the stored auction response, calling no bidder', async () => {
    bidder.received.length = 0;
    const { status, json, text } = await auction([imp('slot-1', { storedauctionresponse: { id: 'whole-auction' } })]);
    expect(status, text).to.equal(200);
    expect(bidder.received).to.have.length(0);
    expect(json.seatbid).to.have.length(1);
    const bid = json.seatbid[0].bid[0];
    expect([json.seatbid[0].seat, bid.id, bid.impid, bid.price]).to.deep.equal(['alpha', 'stored-a', 'slot-1', 3.33]);
    expect(bid.ext.prebid.targeting).to.include({ hb_pb: '3.30', hb_bidder: 'alpha' });
    // No bidder was asked, so none is timed (Prebid Server's exchange has no bidder extras for a stored answer).
    expect(json.ext).to.not.have.property('responsetimemillis');
  });

  it('gives the stored bids event URLs when the request asks for events, as any bid', async () => {
    const body = { id: 'r', site: { page: 'https://p.example' }, imp: [imp('slot-1', { storedauctionresponse: { id: 'whole-auction' } })], tmax: 500, ext: { prebid: { targeting: {}, events: {} } } };
    const { status, json, text } = await postJson(`${gavel.url}/openrtb2/auction`, body);
    expect(status, text).to.equal(200);
    const events = json.seatbid[0].bid[0].ext.prebid.events;
    expect(events.win, events.win).to.match(/\/event\?t=win&b=stored-a&a=unknown&bidder=alpha&ts=\d+$/);
    expect(events.imp).to.match(/\/event\?t=imp&b=stored-a&/);
  });

  it("answers a bidder's imp from its stored bid response and calls it only for its other imps", async () => {
    bidder.received.length = 0;
    const { status, json, text } = await auction([imp('slot-1', { storedbidresponse: [{ id: 'alpha-answer', bidder: 'alpha' }, { id: 'alpha-answer', bidder: 'beta', replaceimpid: false }] }), imp('slot-2')]);
    expect(status, text).to.equal(200);
    // Kept at its stored imp id, beta's stored bid is for an imp beta was not offered: its adapter says so.
    expect(json.ext.errors).to.deep.equal({ beta: [{ code: 3, message: 'bid stored-bid is for imp "placeholder", which was not offered' }] });
    const calls = bidder.received.map((call) => [new URL(call.url, 'http://x').searchParams.get('name'), (call.body.imp as Array<{ id: string }>).map((one) => one.id)]);
    expect(calls).to.have.deep.members([
      ['alpha', ['slot-2']],
      ['beta', ['slot-2']],
    ]);
    const bids = json.seatbid.flatMap((seat: { seat: string; bid: Array<{ id: string; impid: string; price: number }> }) => seat.bid.map((bid) => [seat.seat, bid.id, bid.impid, bid.price]));
    expect(bids).to.have.deep.members([
      ['alpha', 'stored-bid', 'slot-1', 4.4],
      ['alpha', 'alpha-bid-0', 'slot-2', 1],
      ['beta', 'beta-bid-0', 'slot-2', 2],
    ]);
  });

  it("shows a stored bid response in debug output as Prebid Server's bidder layer does: a call to no URL naming the imp", async () => {
    const { status, json, text } = await postJson(`${gavel.url}/openrtb2/auction`, { id: 'r', test: 1, site: { page: 'https://p.example' }, imp: [{ id: 'slot-1', banner: { format: [{ w: 300, h: 250 }] }, ext: { prebid: { bidder: { alpha: {} }, storedbidresponse: [{ id: 'alpha-answer', bidder: 'alpha' }] } } }], tmax: 500 });
    expect(status, text).to.equal(200);
    const stored = (json.ext.debug.httpcalls.alpha as Array<{ uri: string }>).filter((call) => call.uri === '');
    expect(stored).to.have.length(1);
    expect(stored[0]).to.include({ requestbody: 'Stored bid response for impression id: slot-1', requestheaders: null, status: 200 });
    expect(JSON.parse((stored[0] as unknown as { responsebody: string }).responsebody).seatbid[0].bid[0].id).to.equal('stored-bid');
  });

  it('writes no httpcalls when no bidder was called (a stored auction response), the resolved request all the same', async () => {
    const { status, json, text } = await postJson(`${gavel.url}/openrtb2/auction`, { id: 'r', test: 1, site: { page: 'https://p.example' }, imp: [{ id: 'slot-1', banner: { format: [{ w: 300, h: 250 }] }, ext: { prebid: { bidder: { alpha: {} }, storedauctionresponse: { id: 'whole-auction' } } } }], tmax: 500 });
    expect(status, text).to.equal(200);
    expect(json.ext.debug).to.have.all.keys('resolvedrequest');
  });

  it('refuses a stored response the backend does not have, naming it', async () => {
    const { status, text } = await auction([imp('slot-1', { storedauctionresponse: { id: 'missing' } })]);
    expect(status).to.equal(400);
    expect(text).to.equal('Invalid request: failed to fetch stored auction response for impId = slot-1 and storedAuctionResponse id = missing\n');
  });
});
