import { ErrorCode, GavelError, type PluginLogger } from '../api/index.js';
import { BackendStatus, startProbe } from '../metrics/readiness.js';
import { CircuitBreaker } from './breaker.js';
import { EmbeddedCacheClient, RemoteCacheClient, type CacheClient } from './client.js';
import { resolveCacheLimits, type CacheLimits } from './limits.js';
import { MemoryCacheStore, RedisCacheStore, type CacheStore } from './store.js';

export * from './store.js';
export * from './limits.js';
export * from './client.js';
export * from './routes.js';
export * from './breaker.js';
export * from './client-limits.js';

/** Host config under `cache`. */
export interface CacheConfig {
  /** A remote Prebid Cache endpoint (`https://cache.example.com/cache`). When set, bids are cached there. */
  url?: string;
  /** Backing store of the embedded cache when `url` is not set (one server, a cluster or a sentinel); in-process memory when absent. */
  redis?: {
    url?: string;
    cluster?: string[];
    sentinel?: { name: string; sentinels: string[]; password?: string };
    keyPrefix?: string;
    commandTimeoutMs?: number;
    breakerFailures?: number;
    healthCheckIntervalMs?: number;
  };
  /** Memory budget of the in-process store. */
  memory?: { maxBytes?: number };
  /** Where clients fetch cached values (`hb_cache_host`/`hb_cache_path`, `ext.<ns>.cache.bids.url`). */
  publicUrl?: string;
  limits?: Partial<Record<keyof CacheLimits, unknown>>;
}

export interface CacheServices {
  limits: CacheLimits;
  client: CacheClient;
  /** The embedded store behind `/cache`; absent when bids go to a remote cache. */
  store?: CacheStore;
  /** For ModuleDeps.cachePublicUrl. */
  publicUrl?: PublicCacheUrl;
  /** Whether the store answers, for readiness; absent for a store that cannot be down (memory, a remote cache). */
  status?: BackendStatus;
  close(): Promise<void>;
}

/** The embedded cache's store the host configured: Redis-backed (one server, a cluster, a sentinel), or in-process memory. */
export function createCacheStore(config: CacheConfig = {}, logger?: PluginLogger): CacheStore {
  const redis = config.redis;
  if (!redis) return new MemoryCacheStore({ maxTotalBytes: config.memory?.maxBytes });
  if ([redis.url, redis.cluster, redis.sentinel].filter((way) => way !== undefined).length !== 1) {
    throw new GavelError(ErrorCode.ConfigInvalid, 'cache.redis needs exactly one of url (one server), cluster (its nodes) or sentinel (name and sentinels)');
  }
  return new RedisCacheStore({ ...redis, logger });
}



/**
 * Builds the cache pieces from host config once, at boot: a client of the remote Prebid Cache when `url` is set,
 * else the embedded cache over `store`.
 */
export function createCacheServices(config: CacheConfig = {}, store?: CacheStore, logger?: PluginLogger): CacheServices {
  const limits = resolveCacheLimits(config.limits);
  const publicUrl = config.publicUrl ? parseCachePublicUrl(config.publicUrl) : undefined;
  if (config.url) {
    const client = new RemoteCacheClient({ url: config.url, limits, logger });
    return { limits, client, publicUrl, close: async () => undefined };
  }
  const embedded = store ?? createCacheStore(config, logger);
  if (!embedded.ping) {
    const client = new EmbeddedCacheClient(embedded, limits, { logger });
    return { limits, client, store: embedded, publicUrl, close: () => embedded.close() };
  }
  // A store that can be down gets a breaker, opened by failed puts or a failed ping and closed by a ping that
  // answers, and a status for readiness.
  const status = new BackendStatus('cache');
  const breaker = new CircuitBreaker({
    failures: config.redis?.breakerFailures ?? 3,
    onChange: (closed) => (closed ? status.markUp() : status.markDown('the bid cache failed repeatedly')),
  });
  status.onChange((up) => {
    if (up) breaker.reset();
    else breaker.trip();
    if (up) logger?.info('bid cache: available again; caching resumes');
    else logger?.error({ reason: status.reason }, 'bid cache: unavailable; auctions skip caching until it answers');
  });
  const ping = embedded.ping.bind(embedded);
  const probe = startProbe(config.redis?.healthCheckIntervalMs ?? 1000, ping, status);
  const client = new EmbeddedCacheClient(embedded, limits, { logger, breaker });
  return {
    limits,
    client,
    store: embedded,
    publicUrl,
    status,
    close: async () => {
      probe.stop();
      await embedded.close();
    },
  };
}

/** `host` and `path` as the targeting keys carry them, plus the scheme for building fetch URLs. */
export interface PublicCacheUrl {
  host: string;
  path: string;
  scheme: string;
}

/** Splits `https://cache.example.com/cache` into `{scheme: 'https', host: 'cache.example.com', path: '/cache'}`. */
export function parseCachePublicUrl(publicUrl: string): PublicCacheUrl {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    throw new GavelError(ErrorCode.ConfigInvalid, `cache.publicUrl must be an absolute URL like https://cache.example.com/cache, got ${JSON.stringify(publicUrl)}`);
  }
  return { scheme: url.protocol.replace(/:$/, ''), host: url.host, path: url.pathname };
}
