import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createAdfBidder } from './adf.js';

export default defineAdapter({
  name: 'adf',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    // Europe. Adform's other data centres: https://adx2.adform.net/adx/openrtb (the Americas) and
    // https://adx3.adform.net/adx/openrtb (APAC); a host picks one with bidders.adf.endpoint.
    endpoint: 'https://adx.adform.net/adx/openrtb',
    maintainer: { email: 'scope.sspp@adform.com' },
    gvlVendorId: 50,
    capabilities: {
      app: { mediaTypes: ['banner', 'native', 'video'] },
      site: { mediaTypes: ['banner', 'native', 'video'] },
    },
    userSync: {
      redirect: { url: 'https://c1.adform.net/cookie?redirect_url={{.RedirectURL}}', userMacro: '$UID' },
    },
    geoscope: ['global'],
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createAdfBidder(config),
});
