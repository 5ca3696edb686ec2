import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createYieldmoBidder } from './yieldmo.js';

export default defineAdapter({
  name: 'yieldmo',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://ads.yieldmo.com/exchange/prebid-server',
    maintainer: { email: 'prebid@yieldmo.com' },
    gvlVendorId: 173,
    capabilities: {
      app: { mediaTypes: ['banner', 'video'] },
      site: { mediaTypes: ['banner', 'video'] },
    },
    userSync: {
      redirect: {
        url: 'https://ads.yieldmo.com/pbsync?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&redirectUri={{.RedirectURL}}',
        userMacro: '$UID',
      },
    },
    ortbVersion: '2.6',
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createYieldmoBidder(config),
});
