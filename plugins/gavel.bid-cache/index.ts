import { defineModule, readJsonBeside, SDK_VERSION, type MediaType } from '../../core/api/index.js';
import { createCacheBidsHook, DEFAULT_BID_CACHE_CONFIG, type BidCacheConfig } from './hooks/cache-bids.js';

export interface BidCacheModuleConfig {
  defaultTtlSeconds?: Partial<Record<MediaType, number>>;
}

export default defineModule<BidCacheModuleConfig>({
  code: 'gavel.bid-cache',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  description: 'Puts winning and bidder-best bids (and video VAST) in the bid cache and sets hb_cache_id / hb_uuid targeting.',
  stages: ['cache-bids'],
  configSchema: readJsonBeside(import.meta.url, './config.schema.json'),
  create(config, deps) {
    return { 'cache-bids': { 'cache-bids': createCacheBidsHook(resolveConfig(config), deps) } };
  },
});

function resolveConfig(config: BidCacheModuleConfig | undefined): BidCacheConfig {
  return {
    defaultTtlSeconds: { ...DEFAULT_BID_CACHE_CONFIG.defaultTtlSeconds, ...config?.defaultTtlSeconds },
  };
}
