import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createUnrulyBidder } from './unruly.js';

export default defineAdapter({
  name: 'unruly',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://targeting.unrulymedia.com/unruly_prebid_server',
    maintainer: { email: 'prebidsupport@unrulygroup.com' },
    gvlVendorId: 36,
    capabilities: {
      app: { mediaTypes: ['banner', 'video'] },
      site: { mediaTypes: ['banner', 'video'] },
    },
    userSync: {
      redirect: {
        url: 'https://sync.1rx.io/usersync2/rmphb?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&redir={{.RedirectURL}}',
        userMacro: '[RX_UUID]',
      },
    },
    ortbVersion: '2.6',
    openrtb: { gppSupported: true },
    geoscope: ['global'],
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createUnrulyBidder(config),
});
