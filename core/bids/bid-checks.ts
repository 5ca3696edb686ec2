/**
 * What happens to the bids around the auction, as Prebid Server's exchange does it: after the bid-adjustment service,
 * bids under a seat the bidder may not use (alternate bidder codes) and invalid bids are dropped
 * (`exchange/bidder_validate_bids.go`); the bids the auction keeps past floors and category mapping get the host's
 * bid id and their event tracking (`identifyBids`); last, as the response is written, the bid's DSA object and the
 * host's and account's creative checks (`checkResponseBids`).
 */
import { randomUUID } from 'node:crypto';
import {
  BidderErrorCode,
  isJsonObject,
  NonBidReason,
  requestOption,
  WarningCode,
  type AuctionBid,
  type AuctionContext,
  type BidderRequest,
  type BidRequest,
  type Imp,
  type SeatResult,
} from '../api/index.js';
import { eventTrackingFor, trackBid, type EventTracking } from '../events/index.js';
import { alternateSeatError, readAlternateBidderCodes, type AlternateBidderCodes } from './alternate-bidder-codes.js';
import { applyDefaultDsa, dsaError, dsaRequirements, type DsaRequirements } from './dsa.js';

export type ValidationMode = 'skip' | 'warn' | 'enforce';

/** The host's bid validations (`auction.bidValidations`). */
export interface BidValidations {
  bannerCreativeMaxSize: ValidationMode;
  secureMarkup: ValidationMode;
  maxCreativeWidth: number;
  maxCreativeHeight: number;
}

/** The host's side of bid processing, fixed at boot (`Tokens.BidChecks`). */
export interface BidCheckSettings {
  /**
   * Prebid Server's bidder-layer checks of each bid: its seat (alternate bidder codes), id, imp id, price, creative id
   * and currency. Always on in a server; Prebid Server's own fixtures were recorded with mock bids fed in below that
   * layer, so their runners switch it off.
   */
  validateBids: boolean;
  validations: BidValidations;
  /** Makes the host's id for a bid (`auction.generateBidId`), or undefined when the host gives none; may throw. */
  newBidId?: (bidder: string) => string;
  /** `server.externalUrl`: where event URLs point. */
  externalUrl: string;
  /** Whether event tracking may be inserted into the VAST of the bidder served by this adapter. */
  vastModifiable(adapter: string): boolean;
  /** When an auction started (epoch ms), as its event URLs say (`ts`); the request's arrival unless replaced. */
  auctionStart?(context: AuctionContext): number;
}

/** What every bidder of one auction is checked against: decided once per auction. */
export interface AuctionBidRules {
  /** The currencies bids may be in (`cur`, else the auction's). */
  allowedCurrencies: readonly string[];
  alternateCodes?: AlternateBidderCodes;
  validations: BidValidations;
  dsa?: DsaRequirements;
  /** Imps by id, for their `secure` flag; only when the secure check runs. */
  imps?: ReadonlyMap<string, Imp>;
  events?: EventTracking;
  /** When the auction started (epoch ms): its event URLs' `ts` and the response's `ext.<ns>.auctiontimestamp`. */
  auctionStart: number;
}

const MODES = new Set<unknown>(['skip', 'warn', 'enforce']);

/**
 * The rules of one auction, read once from the request, its account and the host: also where the account's default
 * DSA object is written into the request (so bidders receive it).
 */
export function auctionBidRules(request: BidRequest, context: AuctionContext, settings: BidCheckSettings): AuctionBidRules {
  // gdpr_only follows GDPR as enforced (signal or the host's guess, switched on): the privacy service read it first.
  applyDefaultDsa(request, context.account, context.privacy.gdprApplies === true);
  const cur = Array.isArray(request.cur) && request.cur.length > 0 ? request.cur.filter((value): value is string => typeof value === 'string').map((value) => value.toUpperCase()) : [];
  const validations = accountValidations(settings.validations, context.account.validations ?? context.account.bid_validations);
  const auctionStart = settings.auctionStart?.(context) ?? Math.floor(context.receivedAt);
  return {
    allowedCurrencies: cur.length > 0 ? cur : [context.currency.toUpperCase()],
    alternateCodes: readAlternateBidderCodes(requestOption(request, 'alternatebiddercodes'), context.account.alternatebiddercodes),
    validations,
    dsa: dsaRequirements(request),
    imps: validations.secureMarkup === 'skip' ? undefined : new Map(request.imp.map((imp) => [imp.id, imp])),
    events: eventTrackingFor(request, context, settings.externalUrl, auctionStart),
    auctionStart,
  };
}

/** The host's validations with the account's settings over them. */
function accountValidations(host: BidValidations, account: unknown): BidValidations {
  if (!isJsonObject(account)) return host;
  const number = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback);
  return {
    bannerCreativeMaxSize: MODES.has(account.banner_creative_max_size) ? (account.banner_creative_max_size as ValidationMode) : host.bannerCreativeMaxSize,
    secureMarkup: MODES.has(account.secure_markup) ? (account.secure_markup as ValidationMode) : host.secureMarkup,
    maxCreativeWidth: number(account.max_creative_width, host.maxCreativeWidth),
    maxCreativeHeight: number(account.max_creative_height, host.maxCreativeHeight),
  };
}

/**
 * Checks one bidder's bids (priced, adjusted, in the auction currency) as Prebid Server's bidder layer does, and drops
 * those that fail, each reported with Prebid Server's message: under `response.ext.errors.<bidder>` (a price problem
 * only in debug), or `warnings` for a seat the bidder may not use; and as a seat non-bid. The survivors get the host's
 * bid id and their event tracking later (`identifyBids`), and the response's checks last (`checkResponseBids`).
 */
export function checkBids(seat: SeatResult, share: BidderRequest, rules: AuctionBidRules, settings: BidCheckSettings, context: AuctionContext): void {
  if (seat.bids.length === 0) return;
  const currency = context.currency.toUpperCase();
  if (settings.validateBids && !rules.allowedCurrencies.includes(currency)) {
    const message = `Bid currency is not allowed. Was '${currency}', wants: ['${rules.allowedCurrencies.join("', '")}']`;
    for (const bid of seat.bids) context.rejectBid(bid, NonBidReason.ResponseRejectedGeneral);
    seat.errors.push({ code: BidderErrorCode.Unknown, message });
    seat.bids = [];
    return;
  }
  let kept: AuctionBid[] | undefined;
  for (let i = 0; i < seat.bids.length; i++) {
    const bid = seat.bids[i]!;
    if (bidderCheckPasses(bid, share, rules, settings.validateBids, context)) kept?.push(bid);
    else kept ??= seat.bids.slice(0, i);
  }
  if (kept) seat.bids = kept;
}

/** The bidder layer's checks of one bid (Prebid Server's `bidder.go`): the seat it came under, then its fields. */
function bidderCheckPasses(auctionBid: AuctionBid, share: BidderRequest, rules: AuctionBidRules, validate: boolean, context: AuctionContext): boolean {
  if (!validate) return true;
  const seatName = auctionBid.seat;
  if (seatName !== undefined) {
    const seatError = alternateSeatError(rules.alternateCodes, share.bidder, seatName);
    if (seatError !== undefined) {
      context.warn(share.bidder, { code: WarningCode.AlternateBidderCode, message: seatError });
      context.rejectBid(auctionBid, NonBidReason.ResponseRejectedGeneral);
      return false;
    }
  }
  const invalid = validationError(auctionBid, context.debug);
  if (invalid !== undefined) {
    context.rejectBid(auctionBid, NonBidReason.ResponseRejectedGeneral, invalid === null ? undefined : { code: BidderErrorCode.Unknown, message: invalid });
    return false;
  }
  return true;
}

/**
 * The checks Prebid Server runs while it writes the response's seats (`exchange.go`, `makeBid`): DSA, creative size,
 * secure markup. They run last, once the auction is done (floors enforced, categories mapped, bid ids given, winners
 * chosen, bids cached and keyed), so a bid they drop has had its part in all of that, as in Prebid Server; the bids of
 * stored auction responses included. A seat that loses a bid to them keeps its place in the response, even with no bid
 * left (`SeatResult.checkedSeats`): Prebid Server gives seats their places before these checks.
 */
export function checkResponseBids(seats: readonly SeatResult[], rules: AuctionBidRules, context: AuctionContext): void {
  for (const seat of seats) {
    let kept: AuctionBid[] | undefined;
    for (let i = 0; i < seat.bids.length; i++) {
      const bid = seat.bids[i]!;
      if (responseCheckPasses(bid, seat.bidder, rules, context)) {
        kept?.push(bid);
        continue;
      }
      kept ??= seat.bids.slice(0, i);
      const seatCode = bid.seat ?? seat.bidder;
      if (!seat.checkedSeats?.includes(seatCode)) (seat.checkedSeats ??= []).push(seatCode);
    }
    if (kept) seat.bids = kept;
  }
}

/** What the response checks report goes under the bid's seat (an alternate bidder code's own name), not its bidder. */
function responseCheckPasses(auctionBid: AuctionBid, bidder: string, rules: AuctionBidRules, context: AuctionContext): boolean {
  const { bid } = auctionBid;
  const seat = auctionBid.seat ?? bidder;
  const dsa = dsaError(bid, rules.dsa);
  if (dsa !== undefined) {
    context.warn(seat, { code: WarningCode.InvalidBidResponseDSA, message: `bid rejected: ${dsa}` });
    context.rejectBid(auctionBid, NonBidReason.ResponseRejectedGeneral);
    return false;
  }
  const { validations } = rules;
  if (auctionBid.type === 'banner' && validations.bannerCreativeMaxSize !== 'skip') {
    const tooLarge = (bid.w ?? 0) > validations.maxCreativeWidth || (bid.h ?? 0) > validations.maxCreativeHeight;
    if (tooLarge && !reportCreative(auctionBid, seat, validations.bannerCreativeMaxSize, 'size', context)) return false;
  }
  if ((auctionBid.type === 'banner' || auctionBid.type === 'video') && validations.secureMarkup !== 'skip' && rules.imps?.get(bid.impid)?.secure !== 0) {
    if (insecureMarkup(bid.adm) && !reportCreative(auctionBid, seat, validations.secureMarkup, 'secure', context)) return false;
  }
  return true;
}

/**
 * The host's bid id and event tracking for every bid still in the auction, given as Prebid Server's exchange gives
 * them: once, after floors enforcement and category mapping have left some bids out (so a bid they drop takes no id
 * from the bidder's count), for the bids of stored auction responses too.
 */
export function identifyBids(seats: SeatResult[], rules: AuctionBidRules, settings: BidCheckSettings, context: AuctionContext): SeatResult[] {
  for (const seat of seats) {
    for (const bid of seat.bids) {
      if (settings.newBidId) generateBidId(bid, settings.newBidId, context);
      if (rules.events) trackBid(bid, rules.events, settings.vastModifiable(seat.adapter));
    }
  }
  return seats;
}

/** The host's id for a bid (`ext.<ns>.bidid`); a generator that fails is reported as the auction's error, as Prebid Server does. */
function generateBidId(bid: AuctionBid, newBidId: (bidder: string) => string, context: AuctionContext): void {
  try {
    bid.generatedBidId = newBidId(bid.seat ?? bid.bidder);
  } catch {
    context.fail(context.namespace, { code: BidderErrorCode.Unknown, message: 'Error generating bid.ext.prebid.bidid' });
  }
}

/** Bid ids as the host generates them: random UUIDs. */
export const randomBidId = (): string => randomUUID();

/**
 * Prebid Server's bid validation: the id, the imp id, a positive price (zero only with a deal), a creative id. The
 * message of the first problem; null for a price problem outside debug (the bid is dropped silently then); undefined
 * when the bid is valid.
 */
function validationError(auctionBid: AuctionBid, debug: boolean): string | null | undefined {
  const { bid } = auctionBid;
  if (typeof bid.id !== 'string' || bid.id === '') return "Bid missing required field 'id'";
  if (typeof bid.impid !== 'string' || bid.impid === '') return `Bid "${bid.id}" missing required field 'impid'`;
  if (bid.price < 0) return debug ? `Bid "${bid.id}" does not contain a positive (or zero if there is a deal) 'price'` : null;
  if (bid.price === 0 && !(typeof bid.dealid === 'string' && bid.dealid !== '')) {
    return debug ? `Bid "${bid.id}" does not contain positive 'price' which is required since there is no deal set for this bid` : null;
  }
  if (typeof bid.crid !== 'string' || bid.crid === '') return `Bid "${bid.id}" missing creative ID`;
  return undefined;
}

/** Markup that loads over plain `http:` (raw or URL-encoded) and never over `https:`. */
function insecureMarkup(adm: unknown): boolean {
  if (typeof adm !== 'string') return false;
  return (adm.includes('http:') || adm.includes('http%3A')) && !adm.includes('https:') && !adm.includes('https%3A');
}

const CREATIVE_MESSAGES = {
  size: { enforce: 'bidResponse rejected: size WxH', warn: 'bidResponse creative size warning: size WxH larger than AdUnit sizes', reason: NonBidReason.ResponseRejectedCreativeSizeNotAllowed },
  secure: { enforce: 'bidResponse rejected: insecure creative in secure context', warn: 'bidResponse warning: insecure creative in secure context', reason: NonBidReason.ResponseRejectedCreativeNotSecure },
} as const;

/** Reports a creative that fails a check under its seat: an error and, when enforced, the bid dropped (false). */
function reportCreative(auctionBid: AuctionBid, seat: string, mode: 'warn' | 'enforce', check: keyof typeof CREATIVE_MESSAGES, context: AuctionContext): boolean {
  const messages = CREATIVE_MESSAGES[check];
  const error = { code: BidderErrorCode.BadServerResponse, message: messages[mode] };
  if (mode === 'warn') {
    context.fail(seat, error);
    return true;
  }
  context.rejectBid(auctionBid, messages.reason, error, seat);
  return false;
}
