/**
 * Deal tiers (`ext.<ns>.supportdeals`), as Prebid Server's exchange applies them (`applyDealSupport`): a publisher
 * gives each bidder of an imp a tier, `imp.ext.prebid.bidder.<bidder>.dealTier: {prefix, minDealTier}`, and a bid whose
 * deal priority (its adapter's, `TypedBid.dealPriority`) reaches `minDealTier` is keyed by its tier: its
 * `hb_pb_cat_dur` starts with `<prefix><priority>_` instead of the price bucket, and the response says
 * `ext.<ns>.dealtiersatisfied: true`.
 */
import { BidderErrorCode, fieldIgnoringCase, isJsonObject, type AuctionBid, type AuctionContext, type AuctionResult, type Imp } from '../../core/api/index.js';

interface DealTier {
  prefix: string;
  minDealTier: number;
}

/**
 * Applies the imps' deal tiers to the bids targeting keys per bidder (each bidder's best bid in its imp, and with a
 * multibid code prefix its next ones). A bid with a deal priority whose bidder has no usable tier for its imp (none,
 * an empty prefix, a minimum below 1) is reported as Prebid Server reports it, among the auction's errors (999).
 */
export function applyDealTiers(auction: AuctionResult, context: AuctionContext): void {
  let imps: Map<string, Imp> | undefined;
  for (const seat of auction.seats) {
    for (const bid of seat.bids) {
      const priority = bid.dealPriority;
      if (priority === undefined || !(priority > 0) || !(bid.bidderBest || bid.targetBidderCode !== undefined)) continue;
      imps ??= new Map(auction.request.imp.map((imp) => [imp.id, imp]));
      const seatName = bid.seat ?? bid.bidder;
      const tier = dealTierOf(imps.get(bid.bid.impid), seatName);
      if (!tier) {
        context.fail(context.namespace, { code: BidderErrorCode.Unknown, message: `dealTier configuration invalid for bidder '${seatName}', imp ID '${bid.bid.impid}'` });
        continue;
      }
      if (priority >= tier.minDealTier) satisfyTier(bid, `${tier.prefix}${priority}_`);
    }
  }
}

/** Marks the bid and puts its tier in place of the price bucket, the first part of its `hb_pb_cat_dur`. */
function satisfyTier(bid: AuctionBid, tierPart: string): void {
  bid.dealTierSatisfied = true;
  const key = bid.categoryDuration;
  if (key === undefined) return;
  const cut = key.indexOf('_');
  bid.categoryDuration = cut === -1 ? tierPart : tierPart + key.slice(cut + 1);
}

/**
 * The usable tier the imp gives the bidder: `imp.ext.prebid.bidder.<name>.dealTier`, members in any letter case as
 * Go's decoder reads them (fieldIgnoringCase), the bidder matched in any letter case; undefined when there is none or
 * it is unusable.
 */
function dealTierOf(imp: Imp | undefined, bidder: string): DealTier | undefined {
  const prebid = isJsonObject(imp?.ext) ? fieldIgnoringCase(imp.ext, 'prebid') : undefined;
  const bidders = isJsonObject(prebid) ? fieldIgnoringCase(prebid, 'bidder') : undefined;
  if (!isJsonObject(bidders)) return undefined;
  const wanted = bidder.toLowerCase();
  const name = Object.hasOwn(bidders, bidder) ? bidder : Object.keys(bidders).find((key) => key.toLowerCase() === wanted);
  const params = name === undefined ? undefined : bidders[name];
  const tier = isJsonObject(params) ? fieldIgnoringCase(params, 'dealTier') : undefined;
  if (!isJsonObject(tier)) return undefined;
  const prefix = fieldIgnoringCase(tier, 'prefix');
  const minDealTier = fieldIgnoringCase(tier, 'minDealTier');
  if (typeof prefix !== 'string' || prefix === '' || typeof minDealTier !== 'number' || !Number.isInteger(minDealTier) || minDealTier < 1) return undefined;
  return { prefix, minDealTier };
}
