import { defineModule, SDK_VERSION } from '../../core/api/index.js';
import { adjustBids } from './hooks/adjust-bids.js';

/** Built-in: applies the request's per-bidder bid adjustment factors to bid prices. */
export default defineModule({
  code: 'gavel.bid-adjustment',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  description: 'Multiplies each bid price by its bidder\'s factor in request.ext.<ns>.bidadjustmentfactors.',
  stages: ['adjust-bids'],
  create: () => ({
    'adjust-bids': { 'apply-factors': adjustBids },
  }),
});
