/**
 * Brand categories and durations (`hb_pb_cat_dur`), the one implementation every endpoint uses: the auction endpoint
 * when a request carries `targeting.includebrandcategory`, the video endpoint for its pods. Runs before winners are
 * chosen, as Prebid Server's category mapping does: a bid it cannot key is left out of the auction.
 */
import {
  BidderErrorCode,
  NonBidReason,
  type AuctionBid,
  type AuctionContext,
  type AuctionResult,
  type ModuleDeps,
} from '../../core/api/index.js';
import type { BrandCategoryOptions } from './options.js';

/** Looks up the host's mapping of one ad server (a publisher's own first). */
export type CategoryLookup = NonNullable<ModuleDeps['categoryMapping']>;

interface Keyed {
  bid: AuctionBid;
  /** What bids are deduplicated on: the category with `withcategory`, else the whole `<pb>_<dur>s`. */
  dedupeKey: string;
  /** The category as keyed (translated or IAB), for messages. */
  category?: string;
  /** The bid's price bucket, what deduplication compares first. */
  bucket: string;
}

/** Rejected because it cannot be keyed (no or several categories, an unmapped one, a duration that does not fit). */
const REJECTED = BidderErrorCode.BadServerResponse;
/** Not an error: the bid lost to a better bid of its category. */
const DEDUPLICATED = BidderErrorCode.NoError;

/**
 * Why Prebid Server's category mapping drops a bid, in its words. On the auction endpoint these are reported as it
 * reports them: one line per bid, `bid rejected [bid ID: <id>] reason: <reason>`, among the auction's own errors
 * (`response.ext.errors.<ns>`, code 999), and only a bid without a category is also a non-bid (303). The video
 * endpoint reports per pod and bidder, in Gavel's words (docs/video.md).
 */
const PREBID_REASONS = {
  noCategory: 'Bid did not contain a category',
  unmapped: (adServer: string, publisher: string) => `Category mapping file for primary ad server: '${adServer}', publisher: '${publisher}' not found`,
  tooLong: 'bid duration exceeds maximum allowed',
  deduplicated: 'Bid was deduplicated',
} as const;

/**
 * Keys each bid `<pb>_<category>_<duration>s` (or `<pb>_<duration>s` without categories, `_<bidder>` appended with
 * `appendbiddernames`) into `AuctionBid.categoryDuration`, and keeps one bid per category (or per key without
 * categories): the higher price bucket (outbids), the higher price within one bucket, the earlier bid on a tie. On the video endpoint bids compete within their pod (the
 * imps `<podid>_<i>`), elsewhere across the auction. Bids that cannot be keyed, and the losers of deduplication, are
 * removed from their seats and reported (`context.rejectBid`, with the reason under `response.ext.errors.<bidder>`).
 */
export function keyCategories(
  auction: AuctionResult,
  options: BrandCategoryOptions,
  appendBidderNames: boolean,
  bucketOf: (bid: AuctionBid) => string,
  lookup: CategoryLookup | undefined,
  context: AuctionContext,
): void | { refused: string } {
  // Categories to translate for an ad server that is neither 1 nor 2 fail the whole auction once bids came back, in
  // Prebid Server's words (its exchange checks the ad server before any bid). Gavel's request validation refuses such
  // a request before any bidder is called; this is the exchange's own rule, for a request that reaches it anyway.
  if (options.withCategory && options.translate && !options.adServer && auction.seats.some((seat) => seat.bids.length > 0)) {
    const named = typeof options.primaryAdServer === 'number' ? options.primaryAdServer : 0;
    return { refused: `Error in category mapping : Primary ad server ${named} not recognized` };
  }
  const mapping = options.withCategory && options.translate && options.adServer ? lookup?.(options.adServer, options.publisher || undefined) : undefined;
  const held = new Map<string, Keyed>();
  const removed = new Set<AuctionBid>();
  const inPrebidWords = context.endpoint !== 'video';
  // Prebid Server keeps each key by bid id (its `bidCategory` map), outside the video endpoint: a later bid with the
  // same id overwrites the key of an earlier one, and a deduplicated bid takes the key of its id away.
  const byId = inPrebidWords ? new Map<string, string>() : undefined;
  /** Drops the bid; `prebidReason` is how Prebid Server words it, `message` Gavel's own line for the video endpoint. */
  const reject = (bid: AuctionBid, code: number, reason: number, message: string, prebidReason: string): void => {
    removed.add(bid);
    if (!inPrebidWords) {
      context.rejectBid(bid, reason, { code, message });
      return;
    }
    if (reason === NonBidReason.ResponseRejectedCategoryMappingInvalid) context.rejectBid(bid, reason);
    context.fail(context.namespace, { code: BidderErrorCode.Unknown, message: `bid rejected [bid ID: ${bid.bid.id}] reason: ${prebidReason}` });
  };
  const rejected = (bid: AuctionBid, why: string): string => `bid ${bid.bid.id} rejected: ${why}`;

  for (const seat of auction.seats) {
    for (const bid of seat.bids) {
      // The category is checked before the duration, as Prebid Server does: a bid failing both is reported for its
      // category.
      let category: string | undefined;
      if (options.withCategory) {
        const found = categoryOf(bid, options, mapping);
        if ('reason' in found) {
          const nonBid = found.unmapped ? NonBidReason.ResponseRejectedGeneral : NonBidReason.ResponseRejectedCategoryMappingInvalid;
          const prebidReason = found.unmapped ? PREBID_REASONS.unmapped(options.adServer ?? '', options.publisher) : PREBID_REASONS.noCategory;
          reject(bid, REJECTED, nonBid, rejected(bid, found.reason), prebidReason);
          continue;
        }
        category = found.id;
      }
      // Outside the video endpoint a bid's duration is the one its adapter reported (`TypedBid.video.duration`), as
      // Prebid Server reads it from the adapter's BidVideo: the bid's own `dur` is not read. The video endpoint falls
      // back to `bid.dur` (docs/video.md).
      const duration = fitDuration(inPrebidWords ? bid.video?.duration : (bid.video?.duration ?? bid.bid.dur), options);
      if ('reason' in duration) {
        reject(bid, REJECTED, NonBidReason.ResponseRejectedGeneral, rejected(bid, duration.reason), PREBID_REASONS.tooLong);
        continue;
      }
      const bucket = bucketOf(bid);
      const key = category === undefined ? `${bucket}_${duration.seconds}s` : `${bucket}_${category}_${duration.seconds}s`;
      const group = context.endpoint === 'video' ? podOf(bid.bid.impid) : '';
      const dedupeKey = `${group}\u0000${category ?? key}`;
      const holder = options.deduplicate ? held.get(dedupeKey) : undefined;
      const keyed: Keyed = { bid, dedupeKey, category, bucket };
      if (holder && !outbids(keyed, holder)) {
        reject(bid, DEDUPLICATED, NonBidReason.ResponseRejectedGeneral, deduplication(bid, holder, category ?? key, group), PREBID_REASONS.deduplicated);
        continue;
      }
      if (holder) {
        reject(holder.bid, DEDUPLICATED, NonBidReason.ResponseRejectedGeneral, deduplication(holder.bid, keyed, category ?? key, group), PREBID_REASONS.deduplicated);
        byId?.delete(String(holder.bid.bid.id));
      }
      held.set(dedupeKey, keyed);
      bid.categoryDuration = appendBidderNames ? `${key}_${bid.seat ?? bid.bidder}` : key;
      byId?.set(String(bid.bid.id), bid.categoryDuration);
    }
  }
  if (removed.size > 0) {
    for (const seat of auction.seats) {
      if (seat.bids.some((bid) => removed.has(bid))) seat.bids = seat.bids.filter((bid) => !removed.has(bid));
    }
    for (const bid of removed) bid.categoryDuration = undefined;
  }
  // A kept bid whose id lost its key is keyed with an empty `hb_pb_cat_dur`, as Prebid Server looks it up.
  if (byId) for (const seat of auction.seats) for (const bid of seat.bids) bid.categoryDuration = byId.get(String(bid.bid.id)) ?? '';
}

/**
 * Whether a bid takes its category from the bid holding it. Prebid Server compares the two price buckets (read as
 * numbers), so with a granularity per media type a bid of a higher price can lose to one of a higher bucket; on equal
 * buckets it draws at random, where Gavel decides by price, the holder keeping its place on a tie (one of the draws).
 */
function outbids(challenger: Keyed, holder: Keyed): boolean {
  const challengerBucket = Number(challenger.bucket);
  const holderBucket = Number(holder.bucket);
  if (challengerBucket !== holderBucket) return challengerBucket > holderBucket;
  return challenger.bid.bid.price > holder.bid.bid.price;
}

function deduplication(loser: AuctionBid, winner: Keyed, key: string, group: string): string {
  const where = group === '' ? '' : ` in pod ${group}`;
  return `bid ${loser.bid.id} deduplicated: bid ${winner.bid.bid.id} of ${winner.bid.seat ?? winner.bid.bidder} has the same category (${key})${where} at a higher or equal price`;
}

/** The pod an imp of the video endpoint belongs to: its id is `<podid>_<i>`. */
function podOf(impId: string): string {
  const at = impId.lastIndexOf('_');
  return at === -1 ? impId : impId.slice(0, at);
}

/**
 * The duration slot a bid of `duration` seconds fills: the nearest allowed value at or above it, or with exact
 * durations only an equal one; with no allowed durations, its own. A bid that reports none counts as 0 s, and a
 * negative duration is fitted like any other (the shortest allowed one), as Prebid Server's findDurationRange fits it.
 */
export function fitDuration(duration: number | undefined, options: Pick<BrandCategoryOptions, 'durations' | 'requireExactDuration'>): { seconds: number } | { reason: string } {
  const seconds = duration ?? 0;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return { reason: `its duration ${String(duration)} is not a number of seconds` };
  const allowed = options.durations;
  if (allowed.length === 0) return { seconds };
  if (options.requireExactDuration) {
    return allowed.includes(seconds)
      ? { seconds }
      : { reason: `its duration ${seconds} s is not one of the allowed durations (${allowed.join(', ')} s), and the request requires an exact duration` };
  }
  const fit = allowed.find((allowedSeconds) => allowedSeconds >= seconds);
  return fit === undefined
    ? { reason: `its duration ${seconds} s is longer than the longest allowed duration, ${allowed[allowed.length - 1]} s` }
    : { seconds: fit };
}

/**
 * The bid's one category: its adapter's primary category when it gave one, as it is; else its single IAB category
 * (`bid.cat`) translated to the ad server's id (or kept as it is with `translatecategories: false`). `unmapped` marks
 * a category the host's mapping cannot translate (Prebid Server records no non-bid for those).
 */
function categoryOf(bid: AuctionBid, options: BrandCategoryOptions, mapping: ReturnType<CategoryLookup>): { id: string } | { reason: string; unmapped?: true } {
  const primary = bid.video?.primaryCategory;
  if (primary) return { id: primary };
  const cat = Array.isArray(bid.bid.cat) ? bid.bid.cat : [];
  if (cat.length === 0) return { reason: 'it carries no IAB category (bid.cat), which brand categories need' };
  if (cat.length > 1) return { reason: `it carries ${cat.length} IAB categories (${cat.join(', ')}); brand categories need exactly one` };
  const iab = String(cat[0]);
  if (!options.translate) return { id: iab };
  if (!options.adServer) return { reason: `primary ad server ${String(options.primaryAdServer)} not recognized; use 1 (freewheel) or 2 (dfp)`, unmapped: true };
  if (!mapping) return { reason: `Category mapping file for primary ad server: '${options.adServer}', publisher: '${options.publisher}' not found`, unmapped: true };
  const mapped = mapping.get(iab);
  return mapped ? { id: mapped.id } : { reason: `its IAB category ${iab} has no ${options.adServer} category in this host's mapping`, unmapped: true };
}
