import { expect } from 'chai';
import type { BidRequest, SeatResult } from '../../api/index.js';
import { MemoryFetcher } from '../../stored/memory-fetcher.js';
import { readStoredResponses, storedAuctionSeats } from '../index.js';

const fetcher = new MemoryFetcher({
  responses: {
    'auction-1': [{ seat: 'appnexus', bid: [{ id: 'b1', impid: 'stored', price: 1.5, mtype: 1 }] }],
    'bid-apn': { id: 'r', seatbid: [{ bid: [{ id: 'apn', impid: 'x', price: 2 }] }] },
  },
});

const request = (imps: Array<Record<string, unknown>>) => ({ id: 'r', imp: imps }) as unknown as BidRequest;
const imp = (id: string, prebid: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ id, banner: {}, ext: { prebid: { bidder: { appnexus: {}, rubicon: {} }, ...prebid }, ...extra } });

describe("stored responses, with Prebid Server's rules", () => {
  it('is nothing to read for a request naming none', async () => {
    expect(await readStoredResponses(request([imp('i', {})]), 'prebid', fetcher)).to.equal(undefined);
  });

  it('reads a stored auction response per imp', async () => {
    const found = await readStoredResponses(request([imp('i1', { storedauctionresponse: { id: 'auction-1' } })]), 'prebid', fetcher);
    expect(found).to.deep.equal({ auction: new Map([['i1', [{ seat: 'appnexus', bid: [{ id: 'b1', impid: 'stored', price: 1.5, mtype: 1 }] }]]]) });
  });

  it('refuses an auction response on some imps but not all, one without an id, and one the backend does not have', async () => {
    expect(await readStoredResponses(request([imp('i1', { storedauctionresponse: { id: 'auction-1' } }), imp('i2', {})]), 'prebid', fetcher)).to.deep.equal({
      errors: [
        'request validation failed. The StoredAuctionResponse.ID field must be completely present with, or completely absent from, all impressions in request. No StoredAuctionResponse data found for request.imp[1].ext.prebid \n',
      ],
    });
    expect(await readStoredResponses(request([imp('i1', { storedauctionresponse: {} })]), 'prebid', fetcher)).to.deep.equal({
      errors: ['request.imp[0] has ext.prebid.storedauctionresponse specified, but "id" field is missing '],
    });
    expect(await readStoredResponses(request([imp('i1', { storedauctionresponse: { id: 'gone' } })]), 'prebid', fetcher)).to.deep.equal({
      errors: ['failed to fetch stored auction response for impId = i1 and storedAuctionResponse id = gone'],
    });
  });

  it('matches stored bid responses to the imp\'s bidders ignoring case, replaceimpid true unless set false', async () => {
    const found = await readStoredResponses(
      request([imp('i1', { storedbidresponse: [{ id: 'bid-apn', bidder: 'APPNEXUS' }, { id: 'bid-apn', bidder: 'rubicon', replaceimpid: false }] })]),
      'prebid',
      fetcher,
    );
    // Replaced in the document itself (an adapter may check the bid's imp), kept as stored otherwise.
    const body = (impid: string) => JSON.stringify({ id: 'r', seatbid: [{ bid: [{ id: 'apn', impid, price: 2 }] }] });
    expect(found).to.deep.equal({
      bids: new Map([
        ['appnexus', [{ impId: 'i1', body: body('i1'), replaceImpId: true }]],
        ['rubicon', [{ impId: 'i1', body: body('x'), replaceImpId: false }]],
      ]),
    });
  });

  it('refuses stored bid responses that do not cover every bidder of the imp, or lack an id or bidder', async () => {
    expect(await readStoredResponses(request([imp('i1', { storedbidresponse: [{ id: 'bid-apn', bidder: 'appnexus' }] })]), 'prebid', fetcher)).to.deep.equal({
      errors: ['request validation failed. Stored bid responses are specified for imp i1. Bidders specified in imp.ext should match with bidders specified in imp.ext.prebid.storedbidresponse'],
    });
    expect(await readStoredResponses(request([imp('i1', { storedbidresponse: [{ bidder: 'appnexus' }] })]), 'prebid', fetcher)).to.deep.equal({
      errors: ['request.imp[0] has ext.prebid.storedbidresponse specified, but "id" or/and "bidder" fields are missing '],
    });
    const missing = await readStoredResponses(request([imp('i1', { storedbidresponse: [{ id: 'nope', bidder: 'appnexus' }, { id: 'bid-apn', bidder: 'rubicon' }] })]), 'prebid', fetcher);
    expect(missing).to.deep.equal({ errors: ['failed to fetch stored bid response for impId = i1, bidder = appnexus and storedBidResponse id = nope'] });
  });

  it('names only the first entry it cannot read, as Prebid Server stops there, before the checks of validation', async () => {
    const imps = [
      imp('i1', { storedbidresponse: [{ id: 'bid-apn', bidder: 'appnexus' }] }),
      imp('i2', { storedauctionresponse: {} }),
      imp('i3', { storedbidresponse: [{ bidder: 'appnexus' }] }),
    ];
    expect(await readStoredResponses(request(imps), 'prebid', fetcher)).to.deep.equal({
      errors: ['request.imp[1] has ext.prebid.storedauctionresponse specified, but "id" field is missing '],
    });
  });

  it("reads them for AMP as Prebid Server's AMP endpoint does: what it cannot read is as if never named, and validation then refuses bid responses left unmatched", async () => {
    const amp = { amp: true };
    const mismatch = 'request validation failed. Stored bid responses are specified for imp i1. Bidders specified in imp.ext should match with bidders specified in imp.ext.prebid.storedbidresponse';
    expect(await readStoredResponses(request([imp('i1', { storedauctionresponse: {} })]), 'prebid', fetcher, amp)).to.equal(undefined);
    expect(await readStoredResponses(request([imp('i1', { storedauctionresponse: { id: 'gone' } })]), 'prebid', fetcher, amp)).to.equal(undefined);
    expect(await readStoredResponses(request([imp('i1', { storedbidresponse: [{ bidder: 'appnexus' }] })]), 'prebid', fetcher, amp)).to.deep.equal({ errors: [mismatch] });
    // An auction response without an id drops the bid responses read beside it too.
    const beside = request([imp('i1', { storedauctionresponse: {}, storedbidresponse: [{ id: 'bid-apn', bidder: 'appnexus' }, { id: 'bid-apn', bidder: 'rubicon' }] })]);
    expect(await readStoredResponses(beside, 'prebid', fetcher, amp)).to.deep.equal({ errors: [mismatch] });
    const missing = request([imp('i1', { storedbidresponse: [{ id: 'nope', bidder: 'appnexus' }, { id: 'gone', bidder: 'rubicon' }] })]);
    expect(await readStoredResponses(missing, 'prebid', fetcher, amp)).to.deep.equal({ errors: [mismatch] });
    const found = await readStoredResponses(request([imp('i1', { storedauctionresponse: { id: 'auction-1' } })]), 'prebid', fetcher, amp);
    expect(found).to.have.property('auction');
  });

  it("names a stored response id of the wrong type with Prebid Server's ExtImpPrebid decoder text, which comes first", async () => {
    expect(await readStoredResponses(request([imp('i1', { storedauctionresponse: { id: 5 } })]), 'prebid', fetcher)).to.deep.equal({
      errors: ['cannot unmarshal openrtb_ext.ExtStoredAuctionResponse.ID: expects " or n, but found 5 (in request.imp[0].ext.prebid)'],
    });
    expect(await readStoredResponses(request([imp('i1', { storedbidresponse: [{ id: 'bid-apn', bidder: 'appnexus', replaceimpid: 'no' }] })]), 'prebid', fetcher))
      .to.have.property('errors').with.length(1);
  });

  it('lets an imp whose stored bid responses match none of its bidders go to its bidders when other stored responses were found', async () => {
    const matched = imp('i1', { storedbidresponse: [{ id: 'bid-apn', bidder: 'appnexus' }, { id: 'bid-apn', bidder: 'rubicon' }] });
    const unmatched = imp('i2', { storedbidresponse: [{ id: 'bid-apn', bidder: 'pubmatic' }] });
    const found = await readStoredResponses(request([matched, unmatched]), 'prebid', fetcher);
    expect(found && 'bids' in found ? [...found.bids!.keys()] : found).to.deep.equal(['appnexus', 'rubicon']);
    const withAuction = [imp('i1', { storedauctionresponse: { id: 'auction-1' }, storedbidresponse: [{ id: 'bid-apn', bidder: 'pubmatic' }] })];
    expect(await readStoredResponses(request(withAuction), 'prebid', fetcher)).to.have.property('auction');
  });

  it('counts the bidders of ext.prebid.bidder alone when it is set, and refuses a stored bid response for a bidder the host does not know', async () => {
    const both = { id: 'i1', banner: {}, ext: { prebid: { bidder: { appnexus: {} }, storedbidresponse: [{ id: 'bid-apn', bidder: 'appnexus' }, { id: 'bid-apn', bidder: 'rubicon' }] }, rubicon: {} } };
    expect(await readStoredResponses(request([both]), 'prebid', fetcher)).to.deep.equal({
      errors: ['request validation failed. Stored bid responses are specified for imp i1. Bidders specified in imp.ext should match with bidders specified in imp.ext.prebid.storedbidresponse'],
    });
    const aliased = { id: 'i1', banner: {}, ext: { myalias: {}, prebid: { storedbidresponse: [{ id: 'bid-apn', bidder: 'MyAlias' }] } } };
    const known = (name: string) => ['appnexus', 'rubicon'].includes(name.toLowerCase());
    expect(await readStoredResponses(request([aliased]), 'prebid', fetcher, undefined, known)).to.deep.equal({ errors: ['unrecognized bidder "myalias"'] });
  });

  it('makes seats of stored auction responses, every bid on its imp, typed by mtype or ext.prebid.type', () => {
    const seats = storedAuctionSeats(
      new Map([
        ['i1', [{ seat: 'appnexus', bid: [{ id: 'a', impid: 'old', price: 1, mtype: 2 }, { id: 'b', price: 2, ext: { prebid: { type: 'native' } } }] }]],
        ['i2', [{ seat: 'appnexus', bid: [{ id: 'd', price: 4, mtype: 1 }] }, { seat: 'rubicon', bid: [{ id: 'e', price: 5, mtype: 1 }] }]],
      ]),
      'USD',
    ) as SeatResult[];
    expect(seats.map((seat) => [seat.bidder, seat.bids.map((bid) => [bid.bid.id, bid.bid.impid, bid.type])])).to.deep.equal([
      ['appnexus', [['a', 'i1', 'video'], ['b', 'i1', 'native'], ['d', 'i2', 'banner']]],
      ['rubicon', [['e', 'i2', 'banner']]],
    ]);
  });

  it("fails the whole auction on a stored bid whose media type cannot be told, or a document that is no array, as Prebid Server's exchange", () => {
    const seats = (document: unknown) => storedAuctionSeats(new Map([['i1', document]]), 'USD');
    expect(seats([{ seat: 'appnexus', bid: [{ id: 'c', price: 3 }] }])).to.deep.equal({ critical: 'Failed to parse bid mediatype for impression "i1"' });
    expect(seats([{ seat: 'appnexus', bid: [{ id: 'c', price: 3, mtype: 7 }] }])).to.deep.equal({ critical: 'Failed to parse bid mType for impression "i1"' });
    expect(seats({ seat: 'appnexus' })).to.deep.equal({ critical: 'expect [ or n, but found {' });
  });

  it('carries the Protected Audience configs stored beside a seat, on the request\'s imp, with the seat as adapter', () => {
    const seats = storedAuctionSeats(
      new Map([
        ['i1', [{ seat: 'openx', bid: [{ id: 'a', impid: 'old', price: 1, mtype: 1 }], ext: { prebid: { fledge: { auctionconfigs: [{ impid: 'old', bidder: 'x', config: { seller: 'https://s.example' } }] } } } }]],
        ['i2', [{ seat: 'rubicon', bid: [{ id: 'b', price: 2, mtype: 1 }], ext: { prebid: { fledge: {} } } }]],
      ]),
      'USD',
    ) as SeatResult[];
    expect(seats[0]!.fledgeAuctionConfigs).to.deep.equal([{ impId: 'i1', adapter: 'openx', config: { seller: 'https://s.example' } }]);
    expect(seats[1]!.fledgeAuctionConfigs).to.equal(undefined);
  });
});
