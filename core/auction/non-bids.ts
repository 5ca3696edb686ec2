import type { Namespace } from '../api/index.js';
import type { RejectedBid, RejectedImp } from '../context/request-context.js';

/** One entry of `seatnonbid[].nonbid[]`, as Prebid Server reports a rejected bid (or an imp of a failed call: no ext). */
export interface NonBid {
  impid: string;
  statuscode: number;
  ext?: Record<string, { bid: Record<string, unknown> }>;
}

export interface SeatNonBid {
  seat: string;
  nonbid: NonBid[];
}

/** The bid's facts Prebid Server keeps for a non-bid; fields it leaves empty are left out, as Go's `omitempty` does. */
function nonBidFacts(rejected: RejectedBid): Record<string, unknown> {
  const { bid, originalPrice, originalCurrency } = rejected.bid;
  const facts: Record<string, unknown> = { price: bid.price };
  if (Array.isArray(bid.adomain) && bid.adomain.length > 0) facts.adomain = bid.adomain;
  if (typeof bid.cattax === 'number' && bid.cattax !== 0) facts.cattax = bid.cattax;
  if (Array.isArray(bid.cat) && bid.cat.length > 0) facts.cat = bid.cat;
  if (bid.dealid) facts.dealid = bid.dealid;
  if (bid.w) facts.w = bid.w;
  if (bid.h) facts.h = bid.h;
  if (bid.dur) facts.dur = bid.dur;
  if (bid.mtype) facts.mtype = bid.mtype;
  if (originalPrice) facts.origbidcpm = originalPrice;
  if (originalCurrency) facts.origbidcur = originalCurrency;
  return facts;
}

/**
 * The auction's non-bids grouped by seat: the imps of failed calls first (Prebid Server records them while the
 * bidder is asked), then the rejected bids, each in the order they were recorded.
 */
export function seatNonBids(rejected: readonly RejectedBid[], rejectedImps: readonly RejectedImp[], namespace: Namespace): SeatNonBid[] {
  const bySeat = new Map<string, NonBid[]>();
  for (const { seat, impId, reason } of rejectedImps) {
    let list = bySeat.get(seat);
    if (!list) bySeat.set(seat, (list = []));
    list.push({ impid: impId, statuscode: reason });
  }
  for (const entry of rejected) {
    const seat = entry.bid.seat ?? entry.bid.bidder;
    let list = bySeat.get(seat);
    if (!list) bySeat.set(seat, (list = []));
    list.push({ impid: entry.bid.bid.impid, statuscode: entry.reason, ext: { [namespace]: { bid: nonBidFacts(entry) } } });
  }
  return [...bySeat].map(([seat, nonbid]) => ({ seat, nonbid }));
}
