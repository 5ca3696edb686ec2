import { isJsonObject, requestOption, type AccountSettings, type AuctionBid, type BidRequest, type SeatResult } from '../api/index.js';

/** Most bids one bidder may have keyed in one imp (Prebid Server's `MaxBidLimit`). */
const MAX_BIDS = 9;

interface MultiBid {
  maxBids: number;
  prefix?: string;
}

/** How winners are chosen and which bids get targeting, read from the request and its account. */
export interface WinnerRules {
  /** A bid with a deal beats any bid without one (`targeting.preferdeals`). */
  preferDeals: boolean;
  /**
   * Per seat, how many of its bids in an imp get targeting and under which codes (`ext.<ns>.multibid`): only when the
   * request asks for targeting keys, and only for the bidders the host knows, by the host's name for them.
   */
  multiBid: ReadonlyMap<string, MultiBid>;
  /** Bids a seat may keep per imp (the account's `default_bid_limit`) when the request asks for targeting; 0 keeps them all. */
  bidLimit: number;
}

const NO_MULTIBID: ReadonlyMap<string, MultiBid> = new Map();

/**
 * The rules of one auction. As in Prebid Server (exchange.go, `HoldAuction`), the account's bid limit and multibid
 * belong to targeting: a request without `ext.<ns>.targeting` gets every bid back and no `targetbiddercode`, and the
 * codes are given only when targeting writes keys (`includewinners`, `includebidderkeys` or `includeformat`; the first
 * two are true when left out). A multibid entry counts only for a bidder name the host knows, an adapter or a host
 * alias, in any letter case (`buildMultiBidMap` keeps only the names `NormalizeBidderName` finds): an alternate bidder
 * code or a request alias named there is ignored. The entry is kept under the host's own spelling of the name, which
 * a seat must match exactly (`getMultiBidMeta`): a seat named `AppNexus` in the request gets no multibid.
 */
export function winnerRules(request: BidRequest, account: AccountSettings, hostBidderName: (name: string) => string | undefined): WinnerRules {
  const targeting = requestOption(request, 'targeting');
  if (!isJsonObject(targeting)) return { preferDeals: false, multiBid: NO_MULTIBID, bidLimit: 0 };
  const limit = account.default_bid_limit;
  const writesKeys = targeting.includewinners !== false || targeting.includebidderkeys !== false || targeting.includeformat === true;
  return {
    preferDeals: targeting.preferdeals === true,
    multiBid: writesKeys ? multiBidOf(requestOption(request, 'multibid'), hostBidderName) : NO_MULTIBID,
    bidLimit: typeof limit === 'number' && Number.isInteger(limit) && limit > 0 ? limit : 0,
  };
}

/**
 * `ext.<ns>.multibid` (validation has already warned about and normalised what Prebid Server does), by the host's
 * name of each bidder; a later entry for the same bidder replaces an earlier one, as Prebid Server's map assignment does.
 */
function multiBidOf(entries: unknown, hostBidderName: (name: string) => string | undefined): ReadonlyMap<string, MultiBid> {
  if (!Array.isArray(entries) || entries.length === 0) return NO_MULTIBID;
  const byBidder = new Map<string, MultiBid>();
  for (const entry of entries) {
    if (!isJsonObject(entry) || typeof entry.maxbids !== 'number' || !Number.isFinite(entry.maxbids)) continue;
    const maxBids = Math.min(Math.max(Math.trunc(entry.maxbids), 1), MAX_BIDS);
    if (typeof entry.bidder === 'string' && entry.bidder !== '') {
      const prefix = typeof entry.targetbiddercodeprefix === 'string' && entry.targetbiddercodeprefix !== '' ? entry.targetbiddercodeprefix : undefined;
      const name = hostBidderName(entry.bidder);
      if (name !== undefined) byBidder.set(name, { maxBids, prefix });
    } else if (Array.isArray(entry.bidders)) {
      for (const bidder of entry.bidders) {
        const name = typeof bidder === 'string' ? hostBidderName(bidder) : undefined;
        if (name !== undefined) byBidder.set(name, { maxBids });
      }
    }
  }
  return byBidder.size > 0 ? byBidder : NO_MULTIBID;
}

/** Whether `bid` ranks before `other`: a deal first when deals are preferred, then the higher price. */
function ranksBefore(bid: AuctionBid, other: AuctionBid, preferDeals: boolean): boolean {
  if (preferDeals) {
    const hasDeal = Boolean(bid.bid.dealid);
    if (hasDeal !== Boolean(other.bid.dealid)) return hasDeal;
  }
  return bid.bid.price > other.bid.price;
}

/**
 * Marks each imp's winner (the best bid: a deal first with `preferdeals`, then the highest adjusted price; a tie goes
 * to the bid seen first) and ranks each seat's bids in each imp the same way: its best is `bidderBest`, and with
 * multibid its next ones up to `maxbids` get a `targetBidderCode` when the entry names a `targetbiddercodeprefix`.
 * Bids beyond the account's `default_bid_limit` for their seat and imp are dropped. Bids for imps the request does not
 * have are ignored.
 */
export function markWinners(request: BidRequest, seats: SeatResult[], rules: WinnerRules): void {
  const impIds = new Set(request.imp.map((imp) => imp.id));
  const winners = new Map<string, AuctionBid>();
  // imp -> seat -> bids, in the order seen.
  const bySeat = new Map<string, Map<string, AuctionBid[]>>();
  for (const seat of seats) {
    for (const bid of seat.bids) {
      bid.winner = false;
      bid.bidderBest = false;
      bid.targetBidderCode = undefined;
      const impId = bid.bid.impid;
      if (!impIds.has(impId)) continue;
      const current = winners.get(impId);
      if (!current || ranksBefore(bid, current, rules.preferDeals)) winners.set(impId, bid);
      let seatsOfImp = bySeat.get(impId);
      if (!seatsOfImp) bySeat.set(impId, (seatsOfImp = new Map()));
      const seatName = bid.seat ?? bid.bidder;
      const ranked = seatsOfImp.get(seatName);
      if (ranked) ranked.push(bid);
      else seatsOfImp.set(seatName, [bid]);
    }
  }
  for (const bid of winners.values()) bid.winner = true;

  let dropped: Set<AuctionBid> | undefined;
  for (const seatsOfImp of bySeat.values()) {
    for (const [seatName, bids] of seatsOfImp) {
      // A stable sort: bids that rank the same keep the order they were seen in.
      if (bids.length > 1) bids.sort((a, b) => (ranksBefore(a, b, rules.preferDeals) ? -1 : ranksBefore(b, a, rules.preferDeals) ? 1 : 0));
      bids[0]!.bidderBest = true;
      if (rules.bidLimit > 0 && bids.length > rules.bidLimit) {
        dropped ??= new Set();
        for (const bid of bids.slice(rules.bidLimit)) dropped.add(bid);
      }
      const multiBid = rules.multiBid.get(seatName);
      if (!multiBid || multiBid.maxBids <= 1) continue;
      bids[0]!.targetBidderCode = seatName;
      if (multiBid.prefix === undefined) continue;
      const keyed = Math.min(multiBid.maxBids, rules.bidLimit > 0 ? rules.bidLimit : multiBid.maxBids, bids.length);
      for (let i = 1; i < keyed; i++) bids[i]!.targetBidderCode = `${multiBid.prefix}${i + 1}`;
    }
  }
  if (dropped) for (const seat of seats) if (seat.bids.some((bid) => dropped.has(bid))) seat.bids = seat.bids.filter((bid) => !dropped.has(bid));
}
