import type { AuctionBid, AuctionResult } from '../../core/api/index.js';
import { bidPriceBucket, type TargetingOptions } from './options.js';

/** The public cache address, for `hb_cache_host` / `hb_cache_path`. */
export interface CacheAddress {
  host: string;
  path: string;
}

/**
 * The code a bid's `_<code>` keys use, or undefined when it gets none: its multibid code (`targetBidderCode`), else
 * its seat's name on the bidder's best bid in the imp.
 */
function bidderCode(bid: AuctionBid): string | undefined {
  return bid.targetBidderCode ?? (bid.bidderBest ? bid.seat ?? bid.bidder : undefined);
}

/**
 * Writes each targeted bid's keys straight into its `targeting` object (the core made it for this bid and it belongs
 * to the auction). A bid gets keys when it won its imp (plain keys, with `includewinners`) or when it has a bidder code
 * (`_<code>` keys, with `includebidderkeys`, or on a deal bid with `alwaysincludedeals`).
 */
export function setTargetingKeys(auction: AuctionResult, options: TargetingOptions, cache: CacheAddress | undefined): void {
  for (const seat of auction.seats) {
    for (const bid of seat.bids) writeKeys(bid, options, cache);
  }
}

function writeKeys(bid: AuctionBid, options: TargetingOptions, cache: CacheAddress | undefined): void {
  const { w, h, dealid } = bid.bid;
  const hasDeal = typeof dealid === 'string' && dealid !== '';
  const code = bidderCode(bid);
  const suffix = code !== undefined && (options.includeBidderKeys || (options.alwaysIncludeDeals && hasDeal)) ? `_${code}` : undefined;
  const winnerKeys = options.includeWinners && bid.winner;
  if (suffix === undefined && !winnerKeys) return;

  const into = bid.targeting;
  const { prefix, keyLength } = options;
  const plain = winnerKeys ? keyNames(prefix, keyLength, '') : undefined;
  const suffixed = suffix !== undefined ? keyNames(prefix, keyLength, suffix) : undefined;
  const set = (attribute: Attribute, value: string): void => {
    if (suffixed) into[suffixed[attribute]] = value;
    if (plain) into[plain[attribute]] = value;
  };
  set('_pb', bidPriceBucket(bid, options, options.rounding));
  set('_bidder', code ?? bid.seat ?? bid.bidder);
  if (isSize(w) && isSize(h)) set('_size', `${w}x${h}`);
  if (bid.cache?.bids) set('_cache_id', bid.cache.bids.cacheId);
  if (bid.cache?.vastXml) set('_uuid', bid.cache.vastXml.cacheId);
  if (options.includeFormat) set('_format', bid.type);
  if (cache) {
    set('_cache_host', cache.host);
    set('_cache_path', cache.path);
  }
  if (hasDeal) set('_deal', dealid);
  if (options.environment) set('_env', options.environment);
  if (bid.categoryDuration !== undefined) set('_pb_cat_dur', bid.categoryDuration);
}

const ATTRIBUTES = ['_pb', '_bidder', '_size', '_cache_id', '_uuid', '_format', '_cache_host', '_cache_path', '_deal', '_env', '_pb_cat_dur'] as const;
type Attribute = (typeof ATTRIBUTES)[number];
type KeyNames = Readonly<Record<Attribute, string>>;

/**
 * Key names per prefix, key length and suffix: built once, not per bid (a key built per bid is a new string to hash).
 * Prefixes and suffixes come from requests (aliases, multibid codes): past this many of either, names are built afresh.
 */
const keyNameCache = new Map<string, Map<number, Map<string, KeyNames>>>();
const MAX_CACHED = 512;

function keyNames(prefix: string, keyLength: number, suffix: string): KeyNames {
  let byLength = keyNameCache.get(prefix);
  if (!byLength) {
    if (keyNameCache.size >= MAX_CACHED) keyNameCache.clear();
    keyNameCache.set(prefix, (byLength = new Map()));
  }
  let bySuffix = byLength.get(keyLength);
  if (!bySuffix) byLength.set(keyLength, (bySuffix = new Map()));
  let names = bySuffix.get(suffix);
  if (!names) {
    const built = {} as Record<Attribute, string>;
    for (const attribute of ATTRIBUTES) built[attribute] = cut(prefix + attribute + suffix, keyLength);
    names = built;
    if (bySuffix.size >= MAX_CACHED) bySuffix.clear();
    bySuffix.set(suffix, names);
  }
  return names;
}

export function cut(key: string, length: number): string {
  return key.length > length ? key.slice(0, length) : key;
}

function isSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
