import { ErrorCode, GavelError, type PluginLogger } from '../api/index.js';
import { EmbeddedCacheClient, RemoteCacheClient, type CacheClient } from './client.js';
import { resolveCacheLimits, type CacheLimits } from './limits.js';
import { MemoryCacheStore, RedisCacheStore, type CacheStore } from './store.js';

export * from './store.js';
export * from './limits.js';
export * from './client.js';
export * from './routes.js';

/** Host config under `cache`. */
export interface CacheConfig {
  /** A remote Prebid Cache endpoint (`https://cache.example.com/cache`). When set, bids are cached there. */
  url?: string;
  /** Backing store of the embedded cache when `url` is not set; in-process memory when absent. */
  redis?: { url: string; keyPrefix?: string };
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
  close(): Promise<void>;
}

/** Builds the cache pieces from host config once, at boot. */
export function createCacheServices(config: CacheConfig = {}, logger?: PluginLogger): CacheServices {
  const limits = resolveCacheLimits(config.limits);
  const publicUrl = config.publicUrl ? parseCachePublicUrl(config.publicUrl) : undefined;
  if (config.url) {
    const client = new RemoteCacheClient({ url: config.url, limits, logger });
    return { limits, client, publicUrl, close: async () => undefined };
  }
  const store: CacheStore = config.redis
    ? new RedisCacheStore({ url: config.redis.url, keyPrefix: config.redis.keyPrefix })
    : new MemoryCacheStore({ maxTotalBytes: config.memory?.maxBytes });
  const client = new EmbeddedCacheClient(store, limits, { logger });
  return { limits, client, store, publicUrl, close: () => store.close() };
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
