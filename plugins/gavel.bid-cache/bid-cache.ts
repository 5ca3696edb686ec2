import {
  BidderErrorCode,
  isJsonObject,
  vastWrapper,
  type AuctionBid,
  type AuctionContext,
  type AuctionResult,
  type Bid,
  type BidCacheService,
  type BidRequest,
  type CachedValue,
  type Imp,
  type MediaType,
  type ModuleDeps,
} from '../../core/api/index.js';

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

/**
 * Prebid Server's words for a bid keyed by brand category and duration whose JSON is cached: its cache key would be
 * the `hb_pb_cat_dur` value (competitive exclusion), which only VAST entries may have, so the bid is cached normally.
 */
const NO_CUSTOM_KEY_FOR_BIDS = 'cannot use custom cache key for non-vast bids';

/** The kind lists a request can ask for, shared by all requests: always in this order, bids before VAST. */
const BIDS_ONLY: readonly CacheKind[] = Object.freeze(['bids'] as const);
const VAST_ONLY: readonly CacheKind[] = Object.freeze(['vastXml'] as const);
const BIDS_AND_VAST: readonly CacheKind[] = Object.freeze(['bids', 'vastXml'] as const);

/** What the request asks for, read from `request.ext.<ns>`. */
interface CacheOptions {
  kinds: readonly CacheKind[];
  includeWinners: boolean;
  includeBidderKeys: boolean;
  /** Only each imp's winner is cached (`cache.winningonly`). */
  winningOnly: boolean;
  /** The response keeps the bids' markup (`cache.bids.returnCreative`, `cache.vastxml.returnCreative`). */
  returnCreative: boolean;
}

/** A bid to cache, and where its values are in the put. */
interface TargetedBid {
  auctionBid: AuctionBid;
  /** Position in the cachePut call of this bid's JSON value; undefined when it has none. */
  bidsPut: number | undefined;
  /** Position in the cachePut call of this bid's VAST value; undefined when it has none. */
  vastPut: number | undefined;
  /** Only its VAST is cached: a video bid cached for its `vastUrl` alone (see findTargetedBids). */
  vastOnly: boolean;
}

/** The public cache address; `scheme` is honoured when the host passes one beside the SDK's host and path. */
interface PublicUrl {
  host: string;
  path: string;
  scheme?: string;
}

/**
 * The built-in bid-caching service. `cache` runs once winners are marked and before targeting: it puts the bids
 * targeting will key (each imp's winner, and each bid that gets bidder keys) in the bid cache with one cachePut call,
 * as the request asks (`ext.<ns>.cache`), and records where each went in `AuctionBid.cache` (targeting then sets
 * `hb_cache_id` / `hb_uuid` from it). With `returnCreative: false` the response's bids lose their markup once cached.
 * `cacheVast` caches the VAST of bids the endpoint needs cached (video pods). A cache failure only leaves a bid
 * uncached: this service never fails the auction.
 */
export function createBidCache(config: BidCacheConfig, deps: CacheDeps): BidCacheService {
  const publicUrl: PublicUrl | undefined = deps.cachePublicUrl;
  // Built once: each cached bid's URL is this plus its uuid.
  const urlPrefix = publicUrl ? cacheUrlPrefix(publicUrl) : undefined;

  return {
    cache(auction: AuctionResult, context: AuctionContext): void | Promise<void> {
      const options = readCacheOptions(auction.request, context.namespace);
      if (!options) return;
      const targeted = findTargetedBids(auction, options);
      const values = planPuts(targeted, options.kinds, auction.request, config, context);
      if (values.length === 0) return withoutCreatives(auction, options);
      return cacheQuietly(deps, values, context).then((uuids) => {
        recordCached(targeted, uuids, urlPrefix);
        withoutCreatives(auction, options);
      });
    },

    async cacheVast(bids: AuctionBid[], request: BidRequest, context: AuctionContext): Promise<void> {
      const impsById = indexImps(request);
      const pending: Array<{ auctionBid: AuctionBid; value: CachePutValue }> = [];
      for (const auctionBid of bids) {
        if (auctionBid.cache?.vastXml) continue;
        const value = vastValue(auctionBid);
        if (!value) continue;
        const ttlseconds = ttlFor(auctionBid.bid, impsById.get(auctionBid.bid.impid), defaultTtl(auctionBid.type, config, context));
        if (ttlseconds !== undefined) value.ttlseconds = ttlseconds;
        pending.push({ auctionBid, value });
      }
      if (pending.length === 0) return;
      const uuids = await cacheQuietly(deps, pending.map(({ value }) => value), context);
      pending.forEach(({ auctionBid }, index) => {
        const uuid = uuids[index];
        if (uuid !== undefined) (auctionBid.cache ??= {}).vastXml = cachedValue(uuid, urlPrefix);
      });
    },
  };
}

/** The uuids of the values, or none at all when the cache call fails in any way (even by throwing outright). */
function cacheQuietly(deps: CacheDeps, values: CachePutValue[], context: AuctionContext): Promise<Array<string | undefined>> {
  const failed = (error: unknown): Array<string | undefined> => {
    context.logger.warn({ err: error }, 'bid cache put failed; cache keys left out');
    return [];
  };
  try {
    return deps.cachePut(values, context.deadline, context).then(undefined, failed);
  } catch (error) {
    return Promise.resolve(failed(error));
  }
}

/** Undefined when the request asks for nothing to cache, or for no targeting (then no key could point at a value). */
function readCacheOptions(request: BidRequest, namespace: string): CacheOptions | undefined {
  const ext = asRecord(request.ext?.[namespace]);
  const targeting = asRecord(ext?.targeting);
  const cache = asRecord(ext?.cache);
  if (!targeting || !cache) return undefined;
  const kinds = requestedKinds(cache);
  if (!kinds) return undefined;
  const bids = asRecord(cache.bids);
  const vast = asRecord(cache.vastxml);
  // Prebid Server: either kind may say false; when both say something, the creative stays if either wants it.
  const returnCreative =
    typeof bids?.returnCreative === 'boolean' && typeof vast?.returnCreative === 'boolean'
      ? bids.returnCreative || vast.returnCreative
      : vast?.returnCreative ?? bids?.returnCreative ?? true;
  return {
    kinds,
    includeWinners: (targeting.includewinners ?? targeting.includeWinners) !== false,
    includeBidderKeys: (targeting.includebidderkeys ?? targeting.includeBidderKeys) !== false,
    winningOnly: cache.winningonly === true,
    returnCreative: returnCreative !== false,
  };
}

function requestedKinds(cache: Record<string, unknown>): readonly CacheKind[] | undefined {
  const bids = isRequested(cache.bids);
  const vastXml = isRequested(cache.vastxml);
  if (bids) return vastXml ? BIDS_AND_VAST : BIDS_ONLY;
  return vastXml ? VAST_ONLY : undefined;
}

/**
 * The bids to cache, as Prebid Server picks them: each imp's winner (with `includewinners`) and, with bidder keys on
 * (unless `winningonly`), every bid of every bidder, not only those targeting keys; with bidder keys off, not the deal
 * bids that still get keys (`alwaysincludedeals`), as Prebid Server's doCache reads only the two includes. And with `vastxml` asked (unless `winningonly`), the VAST of every
 * video bid, as Prebid Server Java caches it: Prebid.js takes every bid of the answer (its default request has
 * bidder keys off) and drops an instream video bid that has no cached VAST to give it a `vastUrl`.
 */
function findTargetedBids(auction: AuctionResult, options: CacheOptions): TargetedBid[] {
  const targeted: TargetedBid[] = [];
  const everyVideoVast = !options.winningOnly && options.kinds.includes('vastXml');
  for (const seat of auction.seats) {
    for (const auctionBid of seat.bids) {
      const winner = auctionBid.winner && options.includeWinners;
      const bidderBid = !options.winningOnly && options.includeBidderKeys;
      if (winner || bidderBid) targeted.push({ auctionBid, bidsPut: undefined, vastPut: undefined, vastOnly: false });
      else if (everyVideoVast && auctionBid.type === 'video') targeted.push({ auctionBid, bidsPut: undefined, vastPut: undefined, vastOnly: true });
    }
  }
  return targeted;
}

/** One value per targeted bid and kind, so a bid that is both winner and keyed bidder bid is cached once. */
function planPuts(targeted: TargetedBid[], kinds: readonly CacheKind[], request: BidRequest, config: BidCacheConfig, context: AuctionContext): CachePutValue[] {
  const impsById = indexImps(request);
  const values: CachePutValue[] = [];
  for (const target of targeted) {
    const { bid, type } = target.auctionBid;
    const ttlseconds = ttlFor(bid, impsById.get(bid.impid), defaultTtl(type, config, context));
    for (const kind of kinds) {
      if (kind === 'bids' && target.vastOnly) continue;
      const value = kind === 'bids' ? bidValue(target.auctionBid) : vastValue(target.auctionBid);
      if (!value) continue;
      if (kind === 'bids' && target.auctionBid.categoryDuration) {
        context.fail(context.namespace, { code: BidderErrorCode.Unknown, message: NO_CUSTOM_KEY_FOR_BIDS });
      }
      if (kind === 'bids') target.bidsPut = values.length;
      else target.vastPut = values.length;
      if (ttlseconds !== undefined) value.ttlseconds = ttlseconds;
      values.push(value);
    }
  }
  return values;
}

/** The bid as JSON; with events on, a bid other than video also carries its win URL (`wurl`), as Prebid Server caches it. */
function bidValue(auctionBid: AuctionBid): CachePutValue {
  const { bid, events, type } = auctionBid;
  return { type: 'json', value: events && type !== 'video' ? { ...bid, wurl: events.win } : bid };
}

/**
 * The VAST of a video bid: its `adm`, else a VAST 3.0 wrapper around its `nurl` (an empty one when it has none, as
 * Prebid Server caches it); nothing for other bids.
 */
function vastValue({ bid, type }: AuctionBid): CachePutValue | undefined {
  if (type !== 'video') return undefined;
  if (typeof bid.adm === 'string' && bid.adm !== '') return { type: 'xml', value: bid.adm };
  return { type: 'xml', value: vastWrapper(typeof bid.nurl === 'string' ? bid.nurl : '') };
}

/** A media type's TTL when neither the imp nor the bid names one: the account's `cache_ttl`, else this module's. */
function defaultTtl(type: MediaType, config: BidCacheConfig, context: AuctionContext): number | undefined {
  return context.account.cache_ttl?.[type] ?? config.defaultTtlSeconds[type];
}

/** The smaller positive of `imp.exp` and `bid.exp`, else the media type's default (0 means none). */
function ttlFor(bid: Bid, imp: Imp | undefined, mediaTypeDefault: number | undefined): number | undefined {
  const impExp = typeof imp?.exp === 'number' && imp.exp > 0 ? imp.exp : undefined;
  const bidExp = typeof bid.exp === 'number' && bid.exp > 0 ? bid.exp : undefined;
  if (impExp !== undefined || bidExp !== undefined) return Math.min(impExp ?? Infinity, bidExp ?? Infinity);
  return mediaTypeDefault && mediaTypeDefault > 0 ? mediaTypeDefault : undefined;
}

function indexImps(request: BidRequest): Map<string, Imp> {
  const impsById = new Map<string, Imp>();
  for (const imp of request.imp) impsById.set(imp.id, imp);
  return impsById;
}

/** Records where each targeted bid's values went (`AuctionBid.cache`); targeting keys them. */
function recordCached(targeted: TargetedBid[], uuids: ReadonlyArray<string | undefined>, urlPrefix: string | undefined): void {
  for (const target of targeted) {
    const bidsUuid = uuidAt(uuids, target.bidsPut);
    const vastUuid = uuidAt(uuids, target.vastPut);
    if (bidsUuid === undefined && vastUuid === undefined) continue;
    const cache = (target.auctionBid.cache ??= {});
    if (bidsUuid !== undefined) cache.bids = cachedValue(bidsUuid, urlPrefix);
    if (vastUuid !== undefined) cache.vastXml = cachedValue(vastUuid, urlPrefix);
  }
}

/** With `returnCreative: false`, the response's bids lose their markup (it was cached, or asked not to be shown). */
function withoutCreatives(auction: AuctionResult, options: CacheOptions): void {
  if (options.returnCreative) return;
  for (const seat of auction.seats) {
    for (const auctionBid of seat.bids) {
      if (auctionBid.bid.adm === undefined) continue;
      const { adm: _markup, ...rest } = auctionBid.bid;
      auctionBid.bid = rest as Bid;
    }
  }
}

function uuidAt(uuids: ReadonlyArray<string | undefined>, putIndex: number | undefined): string | undefined {
  return putIndex === undefined ? undefined : uuids[putIndex];
}

function cachedValue(uuid: string, urlPrefix: string | undefined): CachedValue {
  return urlPrefix === undefined ? { cacheId: uuid } : { url: urlPrefix + uriComponent(uuid), cacheId: uuid };
}

/** `<scheme>://<host><path>?uuid=`: a cached value's URL without its uuid. */
function cacheUrlPrefix({ scheme = 'https', host, path }: PublicUrl): string {
  return `${scheme}://${host}${path}?uuid=`;
}

function isRequested(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isJsonObject(value) ? value : undefined;
}

/**
 * `encodeURIComponent(text)`, without its call when every character is one it leaves as it is (letters, digits,
 * `-._~`): the ids caches hand out, every one of which goes into a URL of the answer.
 */
function uriComponent(text: string): string {
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    const unreserved = (char >= 48 && char <= 57) || (char >= 65 && char <= 90) || (char >= 97 && char <= 122) || char === 45 || char === 46 || char === 95 || char === 126;
    if (!unreserved) return encodeURIComponent(text);
  }
  return text;
}
