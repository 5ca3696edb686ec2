import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createSeedtagBidder } from './seedtag.js';

export default defineAdapter({
  name: 'seedtag',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://s.seedtag.com/c/openrtb?partner=prebidserver',
    maintainer: { email: 'prebid@seedtag.com' },
    gvlVendorId: 157,
    capabilities: {
      site: { mediaTypes: ['video', 'banner'] },
    },
    userSync: {
      iframe: {
        url: 'https://s.seedtag.com/cs/cookiesync/prebid?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&usp_consent={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&redirect={{.RedirectURL}}',
        userMacro: '$UID',
      },
    },
    endpointCompression: 'gzip',
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createSeedtagBidder(config),
});
