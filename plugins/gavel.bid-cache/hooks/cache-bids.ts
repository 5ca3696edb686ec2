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
type CacheExt = Partial<Record<CacheKind, { url?: string; cacheId: string }>>;

/** Targeting keys longer than this are cut (interface specification 2.10). */
const MAX_KEY_LENGTH = 20;
const KEY = { bids: 'hb_cache_id', vastXml: 'hb_uuid', host: 'hb_cache_host', path: 'hb_cache_path' } as const;

/** The kind lists a request can ask for, shared by all requests: always in this order, bids before VAST. */
const NO_KINDS: readonly CacheKind[] = Object.freeze([]);
const BIDS_ONLY: readonly CacheKind[] = Object.freeze(['bids'] as const);
const VAST_ONLY: readonly CacheKind[] = Object.freeze(['vastXml'] as const);
const BIDS_AND_VAST: readonly CacheKind[] = Object.freeze(['bids', 'vastXml'] as const);

/** The uuids when nothing was put in the cache. */
const NO_UUIDS: ReadonlyArray<string | undefined> = Object.freeze([]);

/** What the request asks for, read from `request.ext.<ns>`. */
interface CacheOptions {
  kinds: readonly CacheKind[];
  includeWinners: boolean;
  includeBidderKeys: boolean;
}

/**
 * A bid that carries targeting, where to find it in the payload, and which key sets it gets. Read when the hook runs,
 * so the change finds the same bids however late the cache answers.
 */
interface TargetedBid {
  seatIndex: number;
  bidIndex: number;
  auctionBid: AuctionBid;
  /** The bid's id when the hook ran: the change checks it, since seats may repeat a bid id. */
  bidId: string;
  /** Un-suffixed keys: the bid won its imp and winner keys are asked for. */
  winnerKeys: boolean;
  /** The bidder whose `_<bidder>` keys the bid gets as its bidder's best; undefined when it gets none. */
  bidder: string | undefined;
  /** Position in the cachePut call of this bid's JSON value; undefined when it has none. */
  bidsPut: number | undefined;
  /** Position in the cachePut call of this bid's VAST value; undefined when it has none. */
  vastPut: number | undefined;
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
    // Only the public cache address to set (the common case): nothing to cache, nothing to wait for.
    if (options.kinds.length === 0) return keysResult(targeted, NO_UUIDS, options, context.namespace, publicUrl);

    const values = planPuts(targeted, options.kinds, payload.request, config);
    if (values.length === 0) return keysResult(targeted, NO_UUIDS, options, context.namespace, publicUrl);
    return cacheThenKeys(deps, values, targeted, options, context, publicUrl);
  };
}

/** Puts the values in the cache, then sets the keys of those it got uuids for. */
function cacheThenKeys(
  deps: CacheDeps,
  values: CachePutValue[],
  targeted: TargetedBid[],
  options: CacheOptions,
  context: HookContext,
  publicUrl: PublicUrl | undefined,
): Promise<Result> {
  return cacheQuietly(deps, values, context).then((uuids) => keysResult(targeted, uuids, options, context.namespace, publicUrl));
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
  return {
    kinds: requestedKinds(asRecord(ext?.cache)),
    includeWinners: (targeting.includewinners ?? targeting.includeWinners) !== false,
    includeBidderKeys: (targeting.includebidderkeys ?? targeting.includeBidderKeys) !== false,
  };
}

function requestedKinds(cache: Record<string, unknown> | undefined): readonly CacheKind[] {
  const bids = isRequested(cache?.bids);
  const vastXml = isRequested(cache?.vastxml);
  if (bids) return vastXml ? BIDS_AND_VAST : BIDS_ONLY;
  return vastXml ? VAST_ONLY : NO_KINDS;
}

function findTargetedBids(payload: Readonly<AllBidsPayload>, options: CacheOptions): TargetedBid[] {
  const targeted: TargetedBid[] = [];
  const seats = payload.seats;
  for (let seatIndex = 0; seatIndex < seats.length; seatIndex++) {
    const bids = seats[seatIndex]!.bids;
    for (let bidIndex = 0; bidIndex < bids.length; bidIndex++) {
      const auctionBid = bids[bidIndex]!;
      const winnerKeys = auctionBid.winner && options.includeWinners;
      const bidderKeys = auctionBid.bidderBest && options.includeBidderKeys;
      if (!winnerKeys && !bidderKeys) continue;
      targeted.push({
        seatIndex,
        bidIndex,
        auctionBid,
        bidId: auctionBid.bid.id,
        winnerKeys,
        bidder: bidderKeys ? auctionBid.bidder : undefined,
        bidsPut: undefined,
        vastPut: undefined,
      });
    }
  }
  return targeted;
}

/** One value per targeted bid and kind, so a bid that is both winner and bidder's best is cached once. */
function planPuts(targeted: TargetedBid[], kinds: readonly CacheKind[], request: BidRequest, config: BidCacheConfig): CachePutValue[] {
  const impsById = new Map(request.imp.map((imp) => [imp.id, imp]));
  const values: CachePutValue[] = [];
  for (const target of targeted) {
    const { bid, type } = target.auctionBid;
    const ttlseconds = ttlFor(bid, impsById.get(bid.impid), config.defaultTtlSeconds[type]);
    for (const kind of kinds) {
      const value = kind === 'bids' ? { type: 'json' as const, value: bid } : vastValue(target.auctionBid);
      if (!value) continue;
      if (kind === 'bids') target.bidsPut = values.length;
      else target.vastPut = values.length;
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

/** One change that sets the keys of every targeted bid; none when there is not a single key to set. */
function keysResult(
  targeted: TargetedBid[],
  uuids: ReadonlyArray<string | undefined>,
  options: CacheOptions,
  namespace: string,
  publicUrl: PublicUrl | undefined,
): Result {
  // Every targeted bid gets the address keys when there is an address; otherwise only uuids make keys.
  if (!publicUrl && !anyUuid(targeted, uuids)) return undefined;
  const result: HookResult<AllBidsPayload> = { action: 'update', changes: [cacheKeysChange(targeted, uuids, namespace, publicUrl)] };
  if (options.kinds.length > 0) result.messages = [`cached ${countCached(uuids)} of ${countPuts(targeted)} values`];
  return result;
}

/**
 * The change that sets the keys on the bids of the payload it is applied to. Made apart from the hook so that only
 * a request that gets keys pays for the closure.
 */
function cacheKeysChange(
  targeted: TargetedBid[],
  uuids: ReadonlyArray<string | undefined>,
  namespace: string,
  publicUrl: PublicUrl | undefined,
): (payload: AllBidsPayload) => void {
  return (payload) => setCacheKeys(payload, targeted, uuids, namespace, publicUrl);
}

/**
 * Applied by the executor. Bids are found by position and checked by id, since seats may repeat a bid id. The keys
 * go straight into each bid's `targeting` object (the core made it for this bid and it belongs to the auction); for
 * each key the un-suffixed form comes before the `_<bidder>` form, in the order cache id, uuid, host, path.
 */
function setCacheKeys(
  payload: AllBidsPayload,
  targeted: TargetedBid[],
  uuids: ReadonlyArray<string | undefined>,
  namespace: string,
  publicUrl: PublicUrl | undefined,
): void {
  for (const target of targeted) {
    const auctionBid = payload.seats[target.seatIndex]?.bids[target.bidIndex];
    if (!auctionBid || auctionBid.bid.id !== target.bidId) continue;
    const targeting = auctionBid.targeting;
    const suffix = target.bidder === undefined ? undefined : `_${target.bidder}`;
    const bidsUuid = uuidAt(uuids, target.bidsPut);
    const vastUuid = uuidAt(uuids, target.vastPut);
    if (bidsUuid !== undefined) setKey(targeting, KEY.bids, bidsUuid, target.winnerKeys, suffix);
    if (vastUuid !== undefined) setKey(targeting, KEY.vastXml, vastUuid, target.winnerKeys, suffix);
    if (publicUrl) {
      setKey(targeting, KEY.host, publicUrl.host, target.winnerKeys, suffix);
      setKey(targeting, KEY.path, publicUrl.path, target.winnerKeys, suffix);
    }
    if (bidsUuid !== undefined || vastUuid !== undefined) {
      auctionBid.bid = withCacheExt(auctionBid.bid, cacheEntries(bidsUuid, vastUuid, publicUrl), namespace);
    }
  }
}

/** One key-value pair: as `<key>` on a winner, and as `<key><suffix>` (cut to 20 characters) when there is a suffix. */
function setKey(into: Record<string, string>, key: string, value: string, winnerKeys: boolean, suffix: string | undefined): void {
  if (winnerKeys) into[key] = value;
  if (suffix !== undefined) into[truncateKey(key + suffix)] = value;
}

function truncateKey(key: string): string {
  return key.length > MAX_KEY_LENGTH ? key.slice(0, MAX_KEY_LENGTH) : key;
}

function uuidAt(uuids: ReadonlyArray<string | undefined>, putIndex: number | undefined): string | undefined {
  return putIndex === undefined ? undefined : uuids[putIndex];
}

function anyUuid(targeted: TargetedBid[], uuids: ReadonlyArray<string | undefined>): boolean {
  for (const target of targeted) {
    if (uuidAt(uuids, target.bidsPut) !== undefined || uuidAt(uuids, target.vastPut) !== undefined) return true;
  }
  return false;
}

function countCached(uuids: ReadonlyArray<string | undefined>): number {
  let cached = 0;
  for (let index = 0; index < uuids.length; index++) if (uuids[index] !== undefined) cached++;
  return cached;
}

function countPuts(targeted: TargetedBid[]): number {
  let puts = 0;
  for (const target of targeted) puts += (target.bidsPut === undefined ? 0 : 1) + (target.vastPut === undefined ? 0 : 1);
  return puts;
}

/** `bid.ext.<ns>.cache` entries for the uuids a bid got, with fetch URLs when there is a public address. */
function cacheEntries(bidsUuid: string | undefined, vastUuid: string | undefined, url: PublicUrl | undefined): CacheExt {
  const entries: CacheExt = {};
  if (bidsUuid !== undefined) entries.bids = cacheEntry(bidsUuid, url);
  if (vastUuid !== undefined) entries.vastXml = cacheEntry(vastUuid, url);
  return entries;
}

function cacheEntry(uuid: string, url: PublicUrl | undefined): { url?: string; cacheId: string } {
  return url ? { url: cacheUrl(url, uuid), cacheId: uuid } : { cacheId: uuid };
}

function cacheUrl({ scheme = 'https', host, path }: PublicUrl, uuid: string): string {
  return `${scheme}://${host}${path}?uuid=${encodeURIComponent(uuid)}`;
}

/** A copy of the bid with `ext.<ns>.cache` filled in; the objects it had are left as they were. */
function withCacheExt(bid: Bid, cacheExt: CacheExt, namespace: string): Bid {
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
