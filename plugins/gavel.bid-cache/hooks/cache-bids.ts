import { vastWrapper } from '../../../core/api/index.js';
import type {
  AllBidsPayload,
  AuctionBid,
  Bid,
  BidRequest,
  Hook,
  HookContext,
  HookResult,
  Imp,
  MediaType,
  ModuleDeps,
} from '../../../core/api/index.js';

export interface BidCacheConfig {
  /** TTL of a cached bid whose imp and bid name no `exp`, per media type. 0 leaves it to the cache server. */
  defaultTtlSeconds: Record<MediaType, number>;
}

export const DEFAULT_BID_CACHE_CONFIG: BidCacheConfig = {
  defaultTtlSeconds: { banner: 300, video: 1800, audio: 1800, native: 300 },
};

type CacheDeps = Pick<ModuleDeps, 'cachePut' | 'cachePublicUrl'>;
type CachePutValue = Parameters<ModuleDeps['cachePut']>[0][number];
type CacheKind = 'bids' | 'vastXml';
type Result = HookResult<AllBidsPayload> | undefined;

/** Targeting keys longer than this are cut (interface specification 2.10). */
const MAX_KEY_LENGTH = 20;
const KEY = { bids: 'hb_cache_id', vastXml: 'hb_uuid', host: 'hb_cache_host', path: 'hb_cache_path' } as const;

/** What the request asks for, read from `request.ext.<ns>`. */
interface CacheOptions {
  kinds: CacheKind[];
  includeWinners: boolean;
  includeBidderKeys: boolean;
}

/** A bid that carries targeting, where to find it in the payload, and which key sets it gets. */
interface TargetedBid {
  seatIndex: number;
  bidIndex: number;
  auctionBid: AuctionBid;
  winnerKeys: boolean;
  bidderKeys: boolean;
  /** Position in the cachePut call of this bid's value of each kind. */
  puts: Partial<Record<CacheKind, number>>;
}

/** The public cache address; `scheme` is honoured when the host passes one beside the SDK's host and path. */
interface PublicUrl {
  host: string;
  path: string;
  scheme?: string;
}

/**
 * The cache-bids hook: puts each targeted bid (imp winner, bidder's best in its imp) in the bid cache with one
 * cachePut call, then sets `hb_cache_id*` / `hb_uuid*` and `bid.ext.<ns>.cache` from the uuids. It also sets
 * `hb_cache_host*` / `hb_cache_path*` on targeted bids when the host has a public cache address. A cache failure
 * only leaves keys out: this hook never fails the auction.
 */
export function createCacheBidsHook(config: BidCacheConfig, deps: CacheDeps): Hook<'cache-bids'> {
  const publicUrl: PublicUrl | undefined = deps.cachePublicUrl;

  return (payload: Readonly<AllBidsPayload>, context: HookContext): Result | Promise<Result> => {
    const options = readCacheOptions(payload.request, context.namespace);
    if (!options || (options.kinds.length === 0 && !publicUrl)) return undefined;
    const targeted = findTargetedBids(payload, options);
    if (targeted.length === 0) return undefined;

    const values = planPuts(targeted, options.kinds, payload.request, config);
    if (values.length === 0) return applyKeys(targeted, [], options, context.namespace, publicUrl);

    return cacheQuietly(deps, values, context).then((uuids) => applyKeys(targeted, uuids, options, context.namespace, publicUrl));
  };
}

/** The uuids of the values, or none at all when the cache call fails in any way (even by throwing outright). */
async function cacheQuietly(deps: CacheDeps, values: CachePutValue[], context: HookContext): Promise<Array<string | undefined>> {
  try {
    return await deps.cachePut(values, context.deadline);
  } catch (error) {
    context.logger.warn({ err: error }, 'bid cache put failed; cache keys left out');
    return [];
  }
}

/** Undefined when the request has no targeting: then there are no keys to set at all. */
function readCacheOptions(request: BidRequest, namespace: string): CacheOptions | undefined {
  const ext = asRecord(request.ext?.[namespace]);
  const targeting = asRecord(ext?.targeting);
  if (!targeting) return undefined;
  const cache = asRecord(ext?.cache);
  const kinds: CacheKind[] = [];
  if (isRequested(cache?.bids)) kinds.push('bids');
  if (isRequested(cache?.vastxml)) kinds.push('vastXml');
  return {
    kinds,
    includeWinners: (targeting.includewinners ?? targeting.includeWinners) !== false,
    includeBidderKeys: (targeting.includebidderkeys ?? targeting.includeBidderKeys) !== false,
  };
}

function findTargetedBids(payload: Readonly<AllBidsPayload>, options: CacheOptions): TargetedBid[] {
  const targeted: TargetedBid[] = [];
  payload.seats.forEach((seat, seatIndex) => {
    seat.bids.forEach((auctionBid, bidIndex) => {
      const winnerKeys = auctionBid.winner && options.includeWinners;
      const bidderKeys = auctionBid.bidderBest && options.includeBidderKeys;
      if (winnerKeys || bidderKeys) targeted.push({ seatIndex, bidIndex, auctionBid, winnerKeys, bidderKeys, puts: {} });
    });
  });
  return targeted;
}

/** One value per targeted bid and kind, so a bid that is both winner and bidder's best is cached once. */
function planPuts(targeted: TargetedBid[], kinds: CacheKind[], request: BidRequest, config: BidCacheConfig): CachePutValue[] {
  if (kinds.length === 0) return [];
  const impsById = new Map(request.imp.map((imp) => [imp.id, imp]));
  const values: CachePutValue[] = [];
  for (const target of targeted) {
    const { bid, type } = target.auctionBid;
    const ttlseconds = ttlFor(bid, impsById.get(bid.impid), config.defaultTtlSeconds[type]);
    for (const kind of kinds) {
      const value = kind === 'bids' ? { type: 'json' as const, value: bid } : vastValue(target.auctionBid);
      if (!value) continue;
      target.puts[kind] = values.length;
      values.push(ttlseconds === undefined ? value : { ...value, ttlseconds });
    }
  }
  return values;
}

/** The VAST of a video bid: its `adm`, else a VAST 3.0 wrapper around its `nurl`; nothing for other bids. */
function vastValue({ bid, type }: AuctionBid): CachePutValue | undefined {
  if (type !== 'video') return undefined;
  if (typeof bid.adm === 'string' && bid.adm !== '') return { type: 'xml', value: bid.adm };
  if (typeof bid.nurl === 'string' && bid.nurl !== '') return { type: 'xml', value: vastWrapper(bid.nurl) };
  return undefined;
}

/** The smaller positive of `imp.exp` and `bid.exp`, else the media type's default (0 means none). */
function ttlFor(bid: Bid, imp: Imp | undefined, mediaTypeDefault: number | undefined): number | undefined {
  const candidates = [imp?.exp, bid.exp].filter((exp): exp is number => typeof exp === 'number' && exp > 0);
  if (candidates.length > 0) return Math.min(...candidates);
  return mediaTypeDefault && mediaTypeDefault > 0 ? mediaTypeDefault : undefined;
}

interface BidUpdate {
  seatIndex: number;
  bidIndex: number;
  bidId: string;
  keys: Record<string, string>;
  cacheExt: Partial<Record<CacheKind, { url?: string; cacheId: string }>>;
}

function applyKeys(
  targeted: TargetedBid[],
  uuids: Array<string | undefined>,
  options: CacheOptions,
  namespace: string,
  publicUrl: PublicUrl | undefined,
): Result {
  const updates = targeted.map((target) => bidUpdate(target, uuids, options.kinds, publicUrl));
  if (updates.every((update) => Object.keys(update.keys).length === 0)) return undefined;
  const result: HookResult<AllBidsPayload> = {
    action: 'update',
    changes: [(payload) => applyUpdates(payload, updates, namespace)],
  };
  if (options.kinds.length > 0) {
    const requested = targeted.reduce((count, target) => count + Object.keys(target.puts).length, 0);
    const cached = uuids.filter((uuid) => uuid !== undefined).length;
    result.messages = [`cached ${cached} of ${requested} values`];
  }
  return result;
}

function bidUpdate(target: TargetedBid, uuids: Array<string | undefined>, kinds: CacheKind[], url: PublicUrl | undefined): BidUpdate {
  const values: Record<string, string> = {};
  const cacheExt: BidUpdate['cacheExt'] = {};
  for (const kind of kinds) {
    const putIndex = target.puts[kind];
    const uuid = putIndex === undefined ? undefined : uuids[putIndex];
    if (uuid === undefined) continue;
    values[KEY[kind]] = uuid;
    cacheExt[kind] = url ? { url: cacheUrl(url, uuid), cacheId: uuid } : { cacheId: uuid };
  }
  if (url) {
    values[KEY.host] = url.host;
    values[KEY.path] = url.path;
  }
  const { auctionBid } = target;
  return {
    seatIndex: target.seatIndex,
    bidIndex: target.bidIndex,
    bidId: auctionBid.bid.id,
    keys: targetingKeys(values, target.winnerKeys, target.bidderKeys ? auctionBid.bidder : undefined),
    cacheExt,
  };
}

/** The un-suffixed keys for a winner and the `_<bidder>` keys (cut to 20 characters) for a bidder's best bid. */
function targetingKeys(values: Record<string, string>, winnerKeys: boolean, bidder: string | undefined): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const [base, value] of Object.entries(values)) {
    if (winnerKeys) keys[base] = value;
    if (bidder !== undefined) keys[`${base}_${bidder}`.slice(0, MAX_KEY_LENGTH)] = value;
  }
  return keys;
}

function cacheUrl({ scheme = 'https', host, path }: PublicUrl, uuid: string): string {
  return `${scheme}://${host}${path}?uuid=${encodeURIComponent(uuid)}`;
}

/** Applied by the executor. Bids are found by position and checked by id, since seats may repeat a bid id. */
function applyUpdates(payload: AllBidsPayload, updates: BidUpdate[], namespace: string): void {
  for (const update of updates) {
    const auctionBid = payload.seats[update.seatIndex]?.bids[update.bidIndex];
    if (!auctionBid || auctionBid.bid.id !== update.bidId) continue;
    auctionBid.targeting = { ...auctionBid.targeting, ...update.keys };
    if (Object.keys(update.cacheExt).length > 0) auctionBid.bid = withCacheExt(auctionBid.bid, update.cacheExt, namespace);
  }
}

/** A copy of the bid with `ext.<ns>.cache` filled in; the objects it had are left as they were. */
function withCacheExt(bid: Bid, cacheExt: BidUpdate['cacheExt'], namespace: string): Bid {
  const ext = bid.ext ?? {};
  const serviceExt = asRecord(ext[namespace]) ?? {};
  const cache = { ...asRecord(serviceExt.cache), ...cacheExt };
  return { ...bid, ext: { ...ext, [namespace]: { ...serviceExt, cache } } };
}

function isRequested(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
