import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createYahooAdsBidder } from './yahooAds.js';

export default defineAdapter({
  name: 'yahooAds',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://s2shb.ssp.yahoo.com/admax/bid/partners/PBS',
    maintainer: { email: 'prebid-tech-team@yahooinc.com' },
    gvlVendorId: 25,
    capabilities: {
      app: { mediaTypes: ['banner', 'video'] },
      site: { mediaTypes: ['banner', 'video'] },
    },
    ortbVersion: '2.6',
    // Yahoo Ads supports redirect user syncs, but each host must arrange its sync URL with Yahoo: none ships here.
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createYahooAdsBidder(config),
});
