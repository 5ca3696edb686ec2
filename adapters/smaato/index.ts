import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createSmaatoBidder } from './smaato.js';

export default defineAdapter({
  name: 'smaato',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://prebid.ad.smaato.net/oapi/prebid',
    maintainer: { email: 'prebid@smaato.com' },
    gvlVendorId: 82,
    capabilities: {
      app: { mediaTypes: ['banner', 'video', 'native'] },
      site: { mediaTypes: ['banner', 'video', 'native'] },
    },
    // Smaato does not sync users when GDPR applies; hosts in Europe may want to leave user sync off (see README).
    userSync: {
      redirect: {
        url: 'https://s.ad.smaato.net/c/?adExInit=p&redir={{.RedirectURL}}&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}',
        userMacro: '$UID',
      },
      iframe: {
        url: 'https://s.ad.smaato.net/i/?adExInit=p&redir={{.RedirectURL}}&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}',
        userMacro: '$UID',
      },
    },
    endpointCompression: 'gzip',
    geoscope: ['global'],
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config, deps) => createSmaatoBidder(config, deps.now ?? Date.now),
});
