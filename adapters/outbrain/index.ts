import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createOutbrainBidder } from './outbrain.js';

export default defineAdapter({
  name: 'outbrain',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://prebidtest.zemanta.com/api/bidder/prebidtest/bid/',
    maintainer: { email: 'prog-ops-team@outbrain.com' },
    gvlVendorId: 164,
    capabilities: {
      app: { mediaTypes: ['banner', 'native', 'video'] },
      site: { mediaTypes: ['banner', 'native', 'video'] },
    },
    userSync: {
      redirect: {
        url: 'https://prebidtest.zemanta.com/usersync/prebidtest?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&cb={{.RedirectURL}}',
        userMacro: '__ZUID__',
      },
    },
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createOutbrainBidder(config),
});
