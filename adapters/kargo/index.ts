import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createKargoBidder } from './kargo.js';

export default defineAdapter({
  name: 'kargo',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://krk2.kargo.com/api/v1/openrtb',
    maintainer: { email: 'kraken@kargo.com' },
    gvlVendorId: 972,
    capabilities: {
      site: { mediaTypes: ['banner', 'video', 'native'] },
      app: { mediaTypes: ['banner', 'video', 'native'] },
    },
    userSync: {
      redirect: {
        url: 'https://crb.kargo.com/api/v1/dsync/PrebidServer?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&r={{.RedirectURL}}',
        userMacro: '$UID',
      },
    },
    ortbVersion: '2.6',
    endpointCompression: 'gzip',
    openrtb: { gppSupported: true },
    modifyingVastXmlAllowed: true,
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createKargoBidder(config),
});
