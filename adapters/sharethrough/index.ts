import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createSharethroughBidder } from './sharethrough.js';

export default defineAdapter({
  name: 'sharethrough',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://btlr.sharethrough.com/universal/v1?supply_id=FGMrCMMc',
    maintainer: { email: 'pubgrowth.engineering@sharethrough.com' },
    gvlVendorId: 80,
    capabilities: {
      app: { mediaTypes: ['banner', 'video', 'native'] },
      site: { mediaTypes: ['banner', 'video', 'native'] },
    },
    userSync: {
      redirect: {
        url: 'https://match.sharethrough.com/FGMrCMMc/v1?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&redirectUri={{.RedirectURL}}',
        userMacro: '$UID',
      },
    },
    ortbVersion: '2.6',
    geoscope: ['global'],
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createSharethroughBidder(config),
});
