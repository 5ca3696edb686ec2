import { defineModule, SDK_VERSION } from '../../core/api/index.js';
import { createBidAdjuster } from './bid-adjuster.js';

/** Built-in: the bid-adjustment service applies the request's bid adjustment factors and rules (and the account's rules) to bid prices. */
export default defineModule({
  code: 'gavel.bid-adjustment',
  version: '2.0.0',
  sdkVersion: SDK_VERSION,
  description: 'Multiplies each bid price by its factor in request.ext.<ns>.bidadjustmentfactors (per media type or bidder), then applies the matching ext.<ns>.bidadjustments rule.',
  provides: { 'bid-adjustment': () => createBidAdjuster() },
});
