import { defineModule, SDK_VERSION } from '../../core/api/index.js';
import { buildTargeting } from './hooks/build-targeting.js';

export {
  DEFAULT_PRICE_GRANULARITY,
  LEGACY_PRICE_GRANULARITIES,
  parsePriceGranularity,
  priceBucket,
  type GranularityParseResult,
  type PriceGranularity,
  type PriceRange,
} from '../../core/api/index.js';

/**
 * Built-in: sets the ad-server targeting keys (`hb_pb`, `hb_bidder`, `hb_size`, `hb_deal`, `hb_format`, `hb_env`,
 * plain on each imp's winner and `_<bidder>` on each bidder's best bid) when the request asks for targeting.
 */
export default defineModule({
  code: 'gavel.targeting',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  description: 'Buckets prices by the requested granularity and sets hb_* targeting keys on winning and bidder-best bids.',
  stages: ['build-targeting'],
  create: () => ({
    'build-targeting': { 'targeting-keys': buildTargeting },
  }),
});
