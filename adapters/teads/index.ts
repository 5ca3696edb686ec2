import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createTeadsBidder } from './teads.js';

export default defineAdapter({
  name: 'teads',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://psrv.teads.tv/prebid-server/bid-request',
    maintainer: { email: 'innov-ssp@teads.tv' },
    gvlVendorId: 132,
    capabilities: {
      app: { mediaTypes: ['banner', 'video'] },
    },
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createTeadsBidder(config),
});
