import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createTripleliftBidder } from './triplelift.js';

export default defineAdapter({
  name: 'triplelift',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://tlx.3lift.com/s2s/auction?sra=1&supplier_id=20',
    maintainer: { email: 'prebid@triplelift.com' },
    gvlVendorId: 28,
    capabilities: {
      app: { mediaTypes: ['banner', 'video'] },
      site: { mediaTypes: ['banner', 'video'] },
    },
    // TripleLift must allowlist the host's redirect domain before these syncs work: hosts should contact TripleLift.
    userSync: {
      iframe: {
        url: 'https://eb2.3lift.com/sync?gdpr={{.GDPR}}&cmp_cs={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&redir={{.RedirectURL}}',
        userMacro: '$UID',
      },
      redirect: {
        url: 'https://eb2.3lift.com/getuid?gdpr={{.GDPR}}&cmp_cs={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&redir={{.RedirectURL}}',
        userMacro: '$UID',
      },
    },
    endpointCompression: 'gzip',
    ortbVersion: '2.6',
    openrtb: { gppSupported: true },
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createTripleliftBidder(config),
});
