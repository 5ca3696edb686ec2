import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { create33acrossBidder } from './33across.js';

export default defineAdapter({
  name: '33across',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://ssc.33across.com/api/v1/s2s',
    maintainer: { email: 'headerbidding@33across.com' },
    gvlVendorId: 58,
    // 33Across does not operate in the EEA: hosts in European data centres should disable it.
    geoscope: ['!EEA'],
    capabilities: { site: { mediaTypes: ['banner', 'video'] } },
    userSync: {
      iframe: {
        url: 'https://ssc-cms.33across.com/ps/?m=xch&rt=html&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&ru={{.RedirectURL}}&id=zzz000000000002zzz',
        userMacro: '33XUSERID33X',
      },
    },
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => create33acrossBidder(config),
});
