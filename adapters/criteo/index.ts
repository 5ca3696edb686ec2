import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createCriteoBidder } from './criteo.js';

export default defineAdapter({
  name: 'criteo',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://ssp-bidder.criteo.com/openrtb/pbs/auction/request?profile=230',
    maintainer: { email: 'prebid@criteo.com' },
    gvlVendorId: 91,
    capabilities: {
      app: { mediaTypes: ['banner', 'video', 'native'] },
      site: { mediaTypes: ['banner', 'video', 'native'] },
    },
    // Criteo syncs users, but needs the host to be set up with Criteo first (see README).
    userSync: {
      redirect: {
        url: 'https://ssp-sync.criteo.com/user-sync/redirect?gdprapplies={{.GDPR}}&gdpr={{.GDPRConsent}}&ccpa={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&redir={{.RedirectURL}}&profile=230',
        userMacro: '${CRITEO_USER_ID}',
      },
      iframe: {
        url: 'https://ssp-sync.criteo.com/user-sync/iframe?gdprapplies={{.GDPR}}&gdpr={{.GDPRConsent}}&ccpa={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&redir={{.RedirectURL}}&profile=230',
        userMacro: '${CRITEO_USER_ID}',
      },
    },
    ortbVersion: '2.6',
    openrtb: { multiformat: true, gppSupported: true },
    geoscope: ['global'],
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createCriteoBidder(config),
});
