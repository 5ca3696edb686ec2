import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createGumgumBidder } from './gumgum.js';

export default defineAdapter({
  name: 'gumgum',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://g2.gumgum.com/providers/prbds2s/bid',
    maintainer: { email: 'prebid@gumgum.com' },
    gvlVendorId: 61,
    capabilities: {
      site: { mediaTypes: ['banner', 'video'] },
    },
    userSync: {
      // GumGum appends the user id to the end of the redirect URL itself: no user macro.
      iframe: {
        url: 'https://rtb.gumgum.com/usync/prbds2s?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&r={{.RedirectURL}}',
        userMacro: '',
      },
    },
    ortbVersion: '2.6',
    openrtb: { gppSupported: true },
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createGumgumBidder(config),
});
