import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createTheTradeDeskBidder } from './thetradedesk.js';

export default defineAdapter({
  name: 'thetradedesk',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://direct.adsrvr.org/bid/bidder/{{.SupplyId}}',
    maintainer: { email: 'Prebid-Maintainers@thetradedesk.com' },
    gvlVendorId: 21,
    capabilities: {
      app: { mediaTypes: ['banner', 'video', 'native', 'audio'] },
      site: { mediaTypes: ['banner', 'video', 'native', 'audio'] },
    },
    ortbVersion: '2.6',
    openrtb: { gppSupported: true },
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createTheTradeDeskBidder(config),
});
