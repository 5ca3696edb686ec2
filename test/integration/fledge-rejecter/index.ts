/** Test fixture: rejects, at raw-bidder-response, the answer of the bidder running as `fledged`; no other. */
import { defineModule, SDK_VERSION } from '../../../core/api/index.js';

export default defineModule({
  code: 'acme.fledge-rejecter',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  stages: ['raw-bidder-response'],
  create: () => ({
    'raw-bidder-response': { 'reject-fledged': (payload) => (payload.bidder === 'fledged' ? { action: 'reject' } : undefined) },
  }),
});
