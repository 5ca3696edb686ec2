import type { AllBidsPayload, AuctionBid, BidRequest, HookContext, HookResult } from '../../../core/api/index.js';
import { parsePriceGranularity, priceBucket, type PriceGranularity } from '../../../core/api/index.js';

/** Targeting keys longer than this are cut (interface specification 2.10). */
export const MAX_KEY_LENGTH = 20;

/** Warning code for targeting options this module could not use (Prebid Server's range for request warnings). */
export const INVALID_TARGETING_WARNING = 10999;

/** What `request.ext.<ns>.targeting` asks for, with the defaults filled in. */
export interface TargetingOptions {
  granularity: PriceGranularity;
  /** Un-suffixed keys on each imp's winning bid. */
  includeWinners: boolean;
  /** `<key>_<bidder>` keys on each bidder's best bid in each imp. */
  includeBidderKeys: boolean;
  /** `hb_format` (the bid's media type). */
  includeFormat: boolean;
  /** `hb_env` value: `amp` on the AMP endpoint, `mobile-app` for app requests, absent otherwise. */
  environment?: string;
}

type TargetingResult = HookResult<AllBidsPayload> | undefined;

/**
 * The build-targeting hook. Does nothing unless the request has `ext.<ns>.targeting`; otherwise returns one change
 * that sets the keys on every winning and bidder-best bid. Synchronous: it costs the auction no promise.
 */
export function buildTargeting(payload: Readonly<AllBidsPayload>, context: HookContext): TargetingResult {
  const read = readTargetingOptions(payload.request, context);
  if (read === undefined) return undefined;
  if ('error' in read) {
    return { action: 'no-op', warnings: { general: [{ code: INVALID_TARGETING_WARNING, message: read.error }] } };
  }
  const options = read.options;
  if (!options.includeWinners && !options.includeBidderKeys) return undefined;
  return { action: 'update', changes: [targetingChange(options)] };
}

/**
 * The change that sets the keys on the bids of the payload it is applied to. Made here rather than inline in the hook
 * so that the hook does not pay for a closure context on requests it leaves alone.
 */
function targetingChange(options: TargetingOptions): (payload: AllBidsPayload) => void {
  return (payload) => setTargetingKeys(payload, options);
}

/**
 * Reads the targeting options; undefined when the request asks for no targeting. A granularity the validator should
 * have refused comes back as an error, since a stage this late cannot reject the request.
 */
export function readTargetingOptions(
  request: BidRequest,
  context: Pick<HookContext, 'namespace' | 'endpoint'>,
): { options: TargetingOptions } | { error: string } | undefined {
  const serviceExt = request.ext?.[context.namespace];
  const targeting = isObject(serviceExt) ? serviceExt.targeting : undefined;
  if (!isObject(targeting)) return undefined;

  const parsed = parsePriceGranularity(targeting.pricegranularity);
  if ('error' in parsed) {
    return { error: `request.ext.${context.namespace}.targeting.pricegranularity: ${parsed.error}; no targeting keys were set` };
  }
  return {
    options: {
      granularity: parsed.granularity,
      includeWinners: flag(targeting.includewinners ?? targeting.includeWinners, true),
      includeBidderKeys: flag(targeting.includebidderkeys ?? targeting.includeBidderKeys, true),
      includeFormat: flag(targeting.includeformat ?? targeting.includeFormat, false),
      environment: context.endpoint === 'amp' ? 'amp' : request.app ? 'mobile-app' : undefined,
    },
  };
}

/**
 * Writes each targeted bid's keys straight into its `targeting` object: the core made that object for this bid and it
 * belongs to the auction, and assigning in place keeps the key order a `{ ...targeting, ...keys }` copy would give.
 */
function setTargetingKeys(payload: AllBidsPayload, options: TargetingOptions): void {
  for (const seat of payload.seats) {
    for (const bid of seat.bids) writeTargetingKeys(bid, options, bid.targeting);
  }
}

/** The keys one bid gets: bidder-suffixed ones if it is its bidder's best, plain ones if it won its imp. */
export function targetingKeys(bid: AuctionBid, options: TargetingOptions): Record<string, string> | undefined {
  const keys: Record<string, string> = {};
  return writeTargetingKeys(bid, options, keys) ? keys : undefined;
}

/**
 * Sets the keys one bid gets on `into`, each bidder-suffixed key before its plain form; false when it gets none.
 * `hb_pb` and `hb_bidder` always; `hb_size`, `hb_deal`, `hb_format` and `hb_env` when they apply.
 */
function writeTargetingKeys(bid: AuctionBid, options: TargetingOptions, into: Record<string, string>): boolean {
  const bidderKeys = options.includeBidderKeys && bid.bidderBest;
  const winnerKeys = options.includeWinners && bid.winner;
  if (!bidderKeys && !winnerKeys) return false;

  const suffix = bidderKeys ? `_${bid.bidder}` : undefined;
  setKey(into, 'hb_pb', priceBucket(bid.bid.price, options.granularity), suffix, winnerKeys);
  setKey(into, 'hb_bidder', bid.bidder, suffix, winnerKeys);
  const { w, h, dealid } = bid.bid;
  if (isSize(w) && isSize(h)) setKey(into, 'hb_size', `${w}x${h}`, suffix, winnerKeys);
  if (typeof dealid === 'string' && dealid !== '') setKey(into, 'hb_deal', dealid, suffix, winnerKeys);
  if (options.includeFormat) setKey(into, 'hb_format', bid.type, suffix, winnerKeys);
  if (options.environment) setKey(into, 'hb_env', options.environment, suffix, winnerKeys);
  return true;
}

/** One key-value pair: as `<key><suffix>` when there is a bidder suffix, and as `<key>` on a winner. */
function setKey(into: Record<string, string>, key: string, value: string, suffix: string | undefined, winnerKeys: boolean): void {
  if (suffix !== undefined) into[truncateKey(key + suffix)] = value;
  if (winnerKeys) into[truncateKey(key)] = value;
}

export function truncateKey(key: string): string {
  return key.length > MAX_KEY_LENGTH ? key.slice(0, MAX_KEY_LENGTH) : key;
}

function isSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function flag(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
