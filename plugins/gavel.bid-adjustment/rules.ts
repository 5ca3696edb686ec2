/**
 * Bid adjustment rules (`ext.<ns>.bidadjustments`, Prebid Server's `bidadjustment` package): per media type, bidder
 * and deal id, a list of adjustments (`multiplier`, `cpm` in a currency, `static` price), the request's rules over the
 * account's (`bidadjustments` in the account). The most specific rule that matches a bid applies.
 */
import { isJsonObject, type AuctionContext, type BidRequest, type Imp, type MediaType } from '../../core/api/index.js';

export interface Adjustment {
  adjtype: 'multiplier' | 'cpm' | 'static';
  value: number;
  currency?: string;
}

/** `<media type>|<bidder>|<deal id>` (each may be `*`) -> its adjustments. */
export type AdjustmentRules = ReadonlyMap<string, readonly Adjustment[]>;

/** The media types rules are given for; video splits into in-stream and out-stream by the imp's placement. */
const RULE_MEDIA_TYPES = ['banner', 'video-instream', 'video-outstream', 'audio', 'native', '*'] as const;
const WILDCARD = '*';
/** Prices after adjustment are rounded to 4 decimals. */
const PRICE_PRECISION = 10_000;
/** What a bid without a deal is worth at least once adjusted: an adjustment never makes it free. */
const MIN_BID = 0.1;
/** OpenRTB 2.6 `video.plcmt` 4: accompanying content, which Prebid Server adjusts as out-stream. */
const PLCMT_ACCOMPANYING_CONTENT = 4;

/** Whether an adjustments object is usable as a whole (Prebid Server drops the whole object when any entry is not). */
export function validAdjustments(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (!isJsonObject(value)) return false;
  const byMediaType = value.mediatype;
  if (byMediaType === undefined || byMediaType === null) return true;
  if (!isJsonObject(byMediaType)) return false;
  for (const mediaType in byMediaType) {
    const byBidder = byMediaType[mediaType];
    if (!isJsonObject(byBidder)) return false;
    for (const bidder in byBidder) {
      const byDeal = byBidder[bidder];
      if (!isJsonObject(byDeal)) return false;
      for (const deal in byDeal) {
        const list = byDeal[deal];
        if (!Array.isArray(list) || !list.every(validAdjustment)) return false;
      }
    }
  }
  return true;
}

function validAdjustment(adjustment: unknown): boolean {
  if (!isJsonObject(adjustment) || typeof adjustment.value !== 'number' || !Number.isFinite(adjustment.value) || adjustment.value < 0) return false;
  const hasCurrency = typeof adjustment.currency === 'string' && adjustment.currency !== '';
  switch (adjustment.adjtype) {
    case 'multiplier':
      return adjustment.value < 100;
    case 'cpm':
    case 'static':
      return hasCurrency;
    default:
      return false;
  }
}

/**
 * The rules of a request: its own merged over the account's, each media type, bidder and deal of the request winning
 * over the account's. An invalid object (any entry that is not a usable adjustment) is left out whole, with Prebid
 * Server's warning.
 */
export function buildRules(request: BidRequest, context: AuctionContext, warn: (message: string) => void): AdjustmentRules | undefined {
  const own = request.ext?.[context.namespace];
  let fromRequest = isJsonObject(own) ? own.bidadjustments : undefined;
  if (fromRequest !== undefined && !validAdjustments(fromRequest)) {
    warn('bid adjustment from request was invalid');
    fromRequest = undefined;
  }
  let fromAccount = context.account.bidadjustments;
  if (fromRequest === undefined && fromAccount === undefined) return undefined;
  if (fromAccount !== undefined && !validAdjustments(fromAccount)) {
    warn('bid adjustment on account was invalid');
    fromAccount = undefined;
  }
  const rules = new Map<string, readonly Adjustment[]>();
  // Account first, so the request's entries replace them.
  for (const source of [fromAccount, fromRequest]) {
    if (!isJsonObject(source) || !isJsonObject(source.mediatype)) continue;
    for (const mediaType of RULE_MEDIA_TYPES) {
      const byBidder = source.mediatype[mediaType];
      if (!isJsonObject(byBidder)) continue;
      for (const bidder in byBidder) {
        const byDeal = byBidder[bidder] as Record<string, Adjustment[]>;
        for (const deal in byDeal) rules.set(ruleKey(mediaType, bidder, deal), byDeal[deal]!);
      }
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
 * The price of a bid (in the auction currency) after the rule that matches it: a multiplier multiplies, a cpm is
 * converted to the auction currency and subtracted, a static price replaces it (converted from its currency); the
 * result is rounded to 4 decimals. A `cpm` whose currency cannot be converted leaves the price as it was. A bid with a
 * deal goes no lower than 0, one without no lower than 0.10 (Prebid Server's floor for adjusted bids).
 */
export function adjustPrice(
  price: number,
  rules: AdjustmentRules,
  match: { mediaType: string; bidder: string; deal: string | undefined },
  context: Pick<AuctionContext, 'currency' | 'convertCurrency'>,
): number {
  // Bidder names match as written, as Prebid Server's rule keys do (only bidadjustmentfactors ignore case).
  const adjustments = rulesFor(rules, match.mediaType, match.bidder, match.deal);
  if (!adjustments || adjustments.length === 0) return price;
  let adjusted = price;
  for (const adjustment of adjustments) {
    if (adjustment.adjtype === 'multiplier') adjusted *= adjustment.value;
    else {
      const converted = context.convertCurrency(adjustment.value, adjustment.currency ?? context.currency, context.currency);
      if (converted === undefined) return price;
      adjusted = adjustment.adjtype === 'cpm' ? adjusted - converted : converted;
    }
  }
  adjusted = Math.round(adjusted * PRICE_PRECISION) / PRICE_PRECISION;
  if (match.deal) return adjusted < 0 ? 0 : adjusted;
  return adjusted <= 0 ? MIN_BID : adjusted;
}
