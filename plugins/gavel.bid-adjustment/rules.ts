/**
 * Bid adjustment rules (`ext.<ns>.bidadjustments`, Prebid Server's `bidadjustment` package): per media type, bidder
 * and deal id, a list of adjustments (`multiplier`, `cpm` in a currency, `static` price), the request's rules over the
 * account's (`bidadjustments` in the account). The most specific rule that matches a bid applies.
 */
import { adjustmentValue, BID_ADJUSTMENT_MEDIA_TYPES, bidAdjustmentsAreValid, isJsonObject, WarningCode, type AuctionContext, type BidRequest, type Imp, type MediaType } from '../../core/api/index.js';

export interface Adjustment {
  adjtype: 'multiplier' | 'cpm' | 'static';
  value: number;
  currency?: string;
}

/** `<media type>|<bidder>|<deal id>` (each may be `*`) -> its adjustments. */
export type AdjustmentRules = ReadonlyMap<string, readonly Adjustment[]>;

const WILDCARD = '*';
/** Prices after adjustment are rounded to 4 decimals. */
const PRICE_PRECISION = 10_000;
/** What a bid without a deal is worth at least once adjusted: an adjustment never makes it free. */
const MIN_BID = 0.1;
/** OpenRTB 2.6 `video.plcmt` 4: accompanying content, which Prebid Server adjusts as out-stream. */
const PLCMT_ACCOMPANYING_CONTENT = 4;

const REQUEST_INVALID = 'bid adjustment from request was invalid';
const ACCOUNT_INVALID = 'bid adjustment on account was invalid';

/**
 * The rules of a request, as Prebid Server's exchange merges them (`bidadjustment.Merge`): the request's, with the
 * account's added where the request has no rule for the same media type, bidder and deal. The merged whole must be
 * usable: one account entry that is not (and that the request does not replace) leaves the auction with no rules at
 * all, the request's included, and Prebid Server's warning under the exchange's own scope (`ext.warnings.<ns>`). An
 * invalid request object is dropped by validation before the auction; read without it, it is dropped here as there.
 */
export function buildRules(request: BidRequest, context: AuctionContext): AdjustmentRules | undefined {
  const own = request.ext?.[context.namespace];
  let fromRequest = isJsonObject(own) ? own.bidadjustments : undefined;
  if (!bidAdjustmentsAreValid(fromRequest)) {
    context.warn('general', { code: WarningCode.BidAdjustment, message: REQUEST_INVALID });
    fromRequest = undefined;
  }
  const fromAccount = context.account.bidadjustments;
  // A usable request object is an object with an object `mediatype`, or has none.
  const requestRules = mediaTypesOf(fromRequest) || undefined;
  if (fromAccount === undefined || fromAccount === null) return requestRules && rulesOf(requestRules);
  const accountRules = mediaTypesOf(fromAccount);
  const merged = accountRules === false ? undefined : mergeUnder(requestRules ?? {}, accountRules ?? {});
  if (merged === undefined) {
    context.warn(context.namespace, { code: WarningCode.BidAdjustment, message: ACCOUNT_INVALID });
    return undefined;
  }
  return rulesOf(merged);
}

/** `<media type> -> <bidder> -> <deal> -> adjustments`, as read from a usable object. */
type RulesByMediaType = Record<string, Record<string, Record<string, Adjustment[]>>>;

/** The media types of an adjustments object: undefined when it has none, false when it is not an object. */
function mediaTypesOf(adjustments: unknown): RulesByMediaType | undefined | false {
  if (adjustments === undefined || adjustments === null) return undefined;
  if (!isJsonObject(adjustments)) return false;
  const byMediaType = adjustments.mediatype;
  if (byMediaType === undefined || byMediaType === null) return undefined;
  return isJsonObject(byMediaType) ? (byMediaType as RulesByMediaType) : false;
}

/**
 * The request's rules with the account's under them, or undefined when the merged whole is not usable. Only what the
 * request does not already say is taken from the account, so an unusable account entry the request replaces is
 * never looked at (Prebid Server validates the merged object).
 */
function mergeUnder(fromRequest: RulesByMediaType, fromAccount: RulesByMediaType): RulesByMediaType | undefined {
  const merged: RulesByMediaType = {};
  for (const mediaType of BID_ADJUSTMENT_MEDIA_TYPES) {
    const requestBidders = isJsonObject(fromRequest[mediaType]) ? fromRequest[mediaType] : undefined;
    const accountBidders: unknown = fromAccount[mediaType];
    const bidders = { ...requestBidders };
    if (accountBidders !== undefined && accountBidders !== null) {
      if (!isJsonObject(accountBidders)) return undefined;
      for (const bidder in accountBidders) {
        const accountDeals: unknown = accountBidders[bidder];
        const requestDeals = requestBidders && Object.hasOwn(requestBidders, bidder) ? requestBidders[bidder] : undefined;
        if (!isJsonObject(accountDeals)) {
          // A bidder the request has keeps the request's deals; one only the account has must map deals to lists.
          if (requestDeals === undefined) return undefined;
          continue;
        }
        const deals = { ...requestDeals };
        for (const deal in accountDeals) {
          if (requestDeals && Object.hasOwn(requestDeals, deal)) continue;
          const list = accountDeals[deal];
          if (!bidAdjustmentsAreValid({ mediatype: { [mediaType]: { [bidder]: { [deal]: list } } } })) return undefined;
          deals[deal] = list as Adjustment[];
        }
        bidders[bidder] = deals;
      }
    }
    if (Object.keys(bidders).length > 0) merged[mediaType] = bidders;
  }
  return merged;
}

/** One entry per media type, bidder and deal; undefined when there is none. */
function rulesOf(byMediaType: RulesByMediaType): AdjustmentRules | undefined {
  const rules = new Map<string, readonly Adjustment[]>();
  for (const mediaType of BID_ADJUSTMENT_MEDIA_TYPES) {
    const byBidder = byMediaType[mediaType];
    if (!isJsonObject(byBidder)) continue;
    for (const bidder in byBidder) {
      const byDeal = byBidder[bidder]!;
      for (const deal in byDeal) rules.set(ruleKey(mediaType, bidder, deal), byDeal[deal]!);
    }
  }
  return rules.size > 0 ? rules : undefined;
}

function ruleKey(mediaType: string, bidder: string, deal: string): string {
  return `${mediaType}|${bidder}|${deal}`;
}

/** The media type a bid is adjusted as: video splits into in-stream and out-stream by its imp's `video.plcmt`. */
export function ruleMediaType(type: MediaType, imp: Imp | undefined): string {
  if (type !== 'video') return type;
  return imp?.video?.plcmt === PLCMT_ACCOMPANYING_CONTENT ? 'video-outstream' : 'video-instream';
}

/** The adjustments of the most specific matching rule, in Prebid Server's order of precedence. */
function rulesFor(rules: AdjustmentRules, mediaType: string, bidder: string, deal: string | undefined): readonly Adjustment[] | undefined {
  const candidates = deal
    ? [[mediaType, bidder, deal], [mediaType, bidder, WILDCARD], [mediaType, WILDCARD, deal], [WILDCARD, bidder, deal],
      [mediaType, WILDCARD, WILDCARD], [WILDCARD, bidder, WILDCARD], [WILDCARD, WILDCARD, deal], [WILDCARD, WILDCARD, WILDCARD]]
    : [[mediaType, bidder, WILDCARD], [mediaType, WILDCARD, WILDCARD], [WILDCARD, bidder, WILDCARD], [WILDCARD, WILDCARD, WILDCARD]];
  for (const [m, b, d] of candidates) {
    const found = rules.get(ruleKey(m!, b!, d!));
    if (found) return found;
  }
  return undefined;
}

/**
 * The price of a bid (in the auction currency) under the request's rules: the most specific matching rule's
 * adjustments run in order (a multiplier multiplies, a cpm is converted to the auction currency and subtracted, a
 * static price replaces it, converted from its currency), and the result is rounded to 4 decimals; a `cpm` whose
 * currency cannot be converted leaves the price as it was. Then, whether a rule matched or not (Prebid Server's
 * `bidadjustment.Apply` once a request has rules): a bid with a deal goes no lower than 0, one without is priced
 * 0.10 when it would come to 0 or less.
 */
export function adjustPrice(
  price: number,
  rules: AdjustmentRules,
  match: { mediaType: string; bidder: string; deal: string | undefined },
  context: Pick<AuctionContext, 'currency' | 'convertCurrency'>,
): number {
  // Bidder names match as written, as Prebid Server's rule keys do (only bidadjustmentfactors ignore case).
  const adjustments = rulesFor(rules, match.mediaType, match.bidder, match.deal);
  const adjusted = adjustments && adjustments.length > 0 ? applyAdjustments(price, adjustments, context) : price;
  if (match.deal) return adjusted < 0 ? 0 : adjusted;
  return adjusted <= 0 ? MIN_BID : adjusted;
}

function applyAdjustments(price: number, adjustments: readonly Adjustment[], context: Pick<AuctionContext, 'currency' | 'convertCurrency'>): number {
  let adjusted = price;
  for (const adjustment of adjustments) {
    const value = adjustmentValue(adjustment) as number;
    if (adjustment.adjtype === 'multiplier') adjusted *= value;
    else {
      const converted = context.convertCurrency(value, adjustment.currency ?? context.currency, context.currency);
      if (converted === undefined) return price;
      adjusted = adjustment.adjtype === 'cpm' ? adjusted - converted : converted;
    }
  }
  return Math.round(adjusted * PRICE_PRECISION) / PRICE_PRECISION;
}
