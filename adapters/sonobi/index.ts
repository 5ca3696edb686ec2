import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createSonobiBidder } from './sonobi.js';

export default defineAdapter({
  name: 'sonobi',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://apex.go.sonobi.com/prebid?partnerid=71d9d3d8af',
    maintainer: { email: 'apex.prebid@sonobi.com' },
    gvlVendorId: 104,
    capabilities: {
      site: { mediaTypes: ['banner', 'video', 'native'] },
      app: { mediaTypes: ['banner', 'video', 'native'] },
    },
    userSync: {
      iframe: {
        url: 'https://sync.go.sonobi.com/uc.html?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&loc={{.RedirectURL}}',
        userMacro: '[UID]',
      },
      redirect: {
        url: 'https://sync.go.sonobi.com/us.gif?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&loc={{.RedirectURL}}',
        userMacro: '[UID]',
      },
    },
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createSonobiBidder(config),
});
