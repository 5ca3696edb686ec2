import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createAppnexusBidder } from './appnexus.js';

export default defineAdapter({
  name: 'appnexus',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'http://ib.adnxs.com/openrtb2',
    maintainer: { email: 'prebid@microsoft.com' },
    gvlVendorId: 32,
    capabilities: {
      app: { mediaTypes: ['banner', 'video', 'native'] },
      site: { mediaTypes: ['banner', 'video', 'native'] },
    },
    userSync: {
      key: 'adnxs',
      redirect: { url: 'https://ib.adnxs.com/getuid?{{.RedirectURL}}', userMacro: '$UID' },
    },
    endpointCompression: 'none',
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config, deps) => createAppnexusBidder(config, deps),
});
