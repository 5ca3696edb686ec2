import { defineModule, SDK_VERSION } from '../../core/api/index.js';
import { createTargeting } from './targeting.js';

/**
 * Built-in: the targeting service sets the ad-server targeting keys (`hb_pb`, `hb_bidder`, `hb_size`, `hb_deal`,
 * `hb_format`, `hb_env`, plain on each imp's winner and `_<bidder>` on each bidder's best bid) when the request asks
 * for targeting, and gives every endpoint its price buckets.
 */
export default defineModule({
  code: 'gavel.targeting',
  version: '2.0.0',
  sdkVersion: SDK_VERSION,
  description: 'Keys brand categories and durations, buckets prices by the requested granularities and sets hb_* targeting keys on winning and bidder bids, and custom ad-server keys.',
  provides: { targeting: (_config, deps) => createTargeting(deps) },
});
