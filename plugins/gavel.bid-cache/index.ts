import { defineModule, readJsonBeside, SDK_VERSION, type MediaType } from '../../core/api/index.js';
import { createBidCache, DEFAULT_BID_CACHE_CONFIG, type BidCacheConfig } from './bid-cache.js';

export interface BidCacheModuleConfig {
  defaultTtlSeconds?: Partial<Record<MediaType, number>>;
}

/** Built-in: the bid-caching service puts targeted bids (and video VAST) in the bid cache and sets their cache keys. */
export default defineModule<BidCacheModuleConfig>({
  code: 'gavel.bid-cache',
  version: '2.0.0',
  sdkVersion: SDK_VERSION,
  description: 'Puts winning and bidder-best bids (and video VAST) in the bid cache and sets hb_cache_id / hb_uuid targeting.',
  configSchema: readJsonBeside(import.meta.url, './config.schema.json'),
  provides: { 'bid-caching': (config, deps) => createBidCache(resolveConfig(config), deps) },
});

function resolveConfig(config: BidCacheModuleConfig | undefined): BidCacheConfig {
  return {
    defaultTtlSeconds: { ...DEFAULT_BID_CACHE_CONFIG.defaultTtlSeconds, ...config?.defaultTtlSeconds },
  };
}
