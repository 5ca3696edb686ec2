import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createConversantBidder } from './conversant.js';

export default defineAdapter({
  name: 'conversant',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'http://api.hb.ad.cpe.dotomi.com/cvx/server/hb/ortb',
    maintainer: { email: 'PublisherIntegration@epsilon.com' },
    gvlVendorId: 24,
    capabilities: {
      app: { mediaTypes: ['banner', 'video', 'audio', 'native'] },
      site: { mediaTypes: ['banner', 'video', 'audio', 'native'] },
    },
    userSync: {
      // Epsilon appends the user id to the end of the redirect URL itself: no user macro.
      redirect: {
        url: 'https://prebid-match.dotomi.com/match/bounce/current?version=1&networkId=72582&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&rurl={{.RedirectURL}}',
        userMacro: '',
      },
    },
    ortbVersion: '2.6',
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createConversantBidder(config),
});
