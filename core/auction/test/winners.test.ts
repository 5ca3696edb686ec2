import { expect } from 'chai';
import type { AuctionBid, Bid, BidRequest, SeatResult } from '../../api/index.js';
import { testAuctionBid } from '../../api/testing.js';
import { markWinners, winnerRules } from '../winners.js';

function bid(bidder: string, price: number, extra: Partial<Bid> & { seat?: string } = {}): AuctionBid {
  const { seat, ...fields } = extra;
  return testAuctionBid(bidder, { id: `${bidder}-${price}`, impid: 'imp-1', price, ...fields }, seat ? { seat } : {});
}

const seatOf = (bidder: string, bids: AuctionBid[]): SeatResult => ({ bidder, adapter: bidder, bids, errors: [], responseTimeMs: 1 });
const request = (ext: Record<string, unknown> = {}): BidRequest => ({ id: 'r', imp: [{ id: 'imp-1', banner: { w: 300, h: 250 } }], ext: { prebid: ext } });
const everyBidder = (name: string): string => name.toLowerCase();
const flags = (bids: AuctionBid[]) => bids.map((b) => [b.bid.id, b.winner, b.bidderBest, b.targetBidderCode]);

describe('winner marking (core/auction/winners.ts)', () => {
  it('marks the highest price the winner (the bid seen first on a tie) and each seat best', () => {
    const seats = [seatOf('alpha', [bid('alpha', 1), bid('alpha', 2)]), seatOf('beta', [bid('beta', 2)])];
    markWinners(request(), seats, winnerRules(request(), { id: '' }, everyBidder));
    expect(flags(seats.flatMap((s) => s.bids))).to.deep.equal([
      ['alpha-1', false, false, undefined],
      ['alpha-2', true, true, undefined],
      ['beta-2', false, true, undefined],
    ]);
  });

  it('with preferdeals a deal wins over any bid without one, also within a seat', () => {
    const body = request({ targeting: { preferdeals: true } });
    const seats = [seatOf('alpha', [bid('alpha', 3), bid('alpha', 1.5, { dealid: 'd' })]), seatOf('beta', [bid('beta', 2.75)])];
    markWinners(body, seats, winnerRules(body, { id: '' }, everyBidder));
    expect(flags(seats.flatMap((s) => s.bids))).to.deep.equal([
      ['alpha-3', false, false, undefined],
      ['alpha-1.5', true, true, undefined],
      ['beta-2.75', false, true, undefined],
    ]);
    const plain = [seatOf('alpha', [bid('alpha', 3), bid('alpha', 1.5, { dealid: 'd' })])];
    markWinners(request(), plain, winnerRules(request(), { id: '' }, everyBidder));
    expect(plain[0]!.bids[0]!.winner).to.equal(true);
  });

  it('with multibid, codes up to maxbids: the seat name first, then the prefix codes; none without a prefix', () => {
    const body = request({ targeting: {}, multibid: [{ bidder: 'ALPHA', maxbids: 3, targetbiddercodeprefix: 'al' }, { bidders: ['beta'], maxbids: 2 }] });
    const seats = [seatOf('alpha', [1, 4, 3, 2].map((price) => bid('alpha', price))), seatOf('beta', [bid('beta', 1), bid('beta', 0.5)])];
    markWinners(body, seats, winnerRules(body, { id: '' }, everyBidder));
    expect(seats[0]!.bids.map((b) => [b.bid.price, b.targetBidderCode])).to.deep.equal([[1, undefined], [4, 'alpha'], [3, 'al2'], [2, 'al3']]);
    expect(seats[1]!.bids.map((b) => b.targetBidderCode)).to.deep.equal(['beta', undefined]);
  });

  it("drops the bids of a seat beyond the account's default_bid_limit in an imp, best first", () => {
    const targeted = request({ targeting: {} });
    const seats = [seatOf('alpha', [1, 4, 3, 2].map((price) => bid('alpha', price)))];
    markWinners(targeted, seats, winnerRules(targeted, { id: 'a', default_bid_limit: 2 }, everyBidder));
    expect(seats[0]!.bids.map((b) => b.bid.price)).to.deep.equal([4, 3]);
    const all = [seatOf('alpha', [1, 4, 3, 2].map((price) => bid('alpha', price)))];
    markWinners(targeted, all, winnerRules(targeted, { id: 'a' }, everyBidder));
    expect(all[0]!.bids).to.have.length(4);
  });

  it('without targeting keeps every bid and gives no multibid codes (bid limit and multibid belong to targeting)', () => {
    const body = request({ multibid: [{ bidder: 'alpha', maxbids: 2, targetbiddercodeprefix: 'al' }] });
    const seats = [seatOf('alpha', [1, 4, 3].map((price) => bid('alpha', price)))];
    markWinners(body, seats, winnerRules(body, { id: 'a', default_bid_limit: 2 }, everyBidder));
    expect(seats[0]!.bids.map((b) => [b.bid.price, b.winner, b.targetBidderCode])).to.deep.equal([[1, false, undefined], [4, true, undefined], [3, false, undefined]]);
  });

  it('gives no multibid codes when targeting writes no keys, and none for a name the host does not know', () => {
    const silent = request({ targeting: { includewinners: false, includebidderkeys: false }, multibid: [{ bidder: 'alpha', maxbids: 2, targetbiddercodeprefix: 'al' }] });
    const seats = [seatOf('alpha', [bid('alpha', 1), bid('alpha', 2)])];
    markWinners(silent, seats, winnerRules(silent, { id: '' }, everyBidder));
    expect(seats[0]!.bids.map((b) => b.targetBidderCode)).to.deep.equal([undefined, undefined]);
    const extra = request({ targeting: {}, multibid: [{ bidders: ['groupm', 'Alpha'], maxbids: 2 }] });
    const both = [seatOf('alpha', [bid('alpha', 1), bid('alpha', 2, { seat: 'groupm' })])];
    markWinners(extra, both, winnerRules(extra, { id: '' }, (name) => (name.toLowerCase() === 'alpha' ? 'alpha' : undefined)));
    expect(both[0]!.bids.map((b) => b.targetBidderCode)).to.deep.equal(['alpha', undefined]);
  });

  it('ranks an alternate seat on its own', () => {
    const seats = [seatOf('alpha', [bid('alpha', 1), bid('alpha', 2, { seat: 'groupm' })])];
    markWinners(request(), seats, winnerRules(request(), { id: '' }, everyBidder));
    expect(seats[0]!.bids.map((b) => b.bidderBest)).to.deep.equal([true, true]);
  });

  it('ignores bids for imps the request does not have', () => {
    const seats = [seatOf('alpha', [bid('alpha', 9, { impid: 'other' })])];
    markWinners(request(), seats, winnerRules(request(), { id: '' }, everyBidder));
    expect(flags(seats[0]!.bids)).to.deep.equal([['alpha-9', false, false, undefined]]);
  });
});
