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
  return { action: 'update', changes: [(bids) => setTargetingKeys(bids, options)] };
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

function setTargetingKeys(payload: AllBidsPayload, options: TargetingOptions): void {
  for (const seat of payload.seats) {
    for (const bid of seat.bids) {
      const keys = targetingKeys(bid, options);
      if (keys) bid.targeting = { ...bid.targeting, ...keys };
    }
  }
}

/** The keys one bid gets: bidder-suffixed ones if it is its bidder's best, plain ones if it won its imp. */
export function targetingKeys(bid: AuctionBid, options: TargetingOptions): Record<string, string> | undefined {
  const bidderKeys = options.includeBidderKeys && bid.bidderBest;
  const winnerKeys = options.includeWinners && bid.winner;
  if (!bidderKeys && !winnerKeys) return undefined;

  const values = keyValues(bid, options);
  const keys: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (bidderKeys) keys[truncateKey(`${key}_${bid.bidder}`)] = value;
    if (winnerKeys) keys[truncateKey(key)] = value;
  }
  return keys;
}

/** The un-suffixed key-value pairs describing a bid. */
function keyValues(bid: AuctionBid, options: TargetingOptions): Record<string, string> {
  const values: Record<string, string> = {
    hb_pb: priceBucket(bid.bid.price, options.granularity),
    hb_bidder: bid.bidder,
  };
  const { w, h, dealid } = bid.bid;
  if (isSize(w) && isSize(h)) values.hb_size = `${w}x${h}`;
  if (typeof dealid === 'string' && dealid !== '') values.hb_deal = dealid;
  if (options.includeFormat) values.hb_format = bid.type;
  if (options.environment) values.hb_env = options.environment;
  return values;
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
