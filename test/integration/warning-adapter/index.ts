/** Test fixture: one call per auction, one warning when it builds it and one when it reads the answer (no bids). */
import { defineAdapter, SDK_VERSION } from '../../../core/api/index.js';

export default defineAdapter({
  name: 'warner',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://bid.warner.example/openrtb2',
    maintainer: { email: 'prebid@warner.example' },
    capabilities: { site: { mediaTypes: ['banner'] } },
  },
  paramsSchema: { type: 'object' },
  create: (config) => ({
    makeRequests: (request) => ({
      requests: [{ method: 'POST', uri: config.endpoint, body: request, impIds: request.imp.map((imp) => imp.id) }],
      warnings: [{ code: 10999, message: 'built with a warning' }],
    }),
    makeBids: () => ({ bids: [], errors: [{ code: 3, message: 'an error' }], warnings: [{ code: 10002, message: 'read with a warning' }] }),
  }),
});
