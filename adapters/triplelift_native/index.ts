import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createTripleliftNativeBidder } from './triplelift_native.js';

export default defineAdapter({
  name: 'triplelift_native',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://tlx.3lift.com/s2sn/auction?supplier_id=20',
    // Only allowlisted publishers may be sent: a host enables the bidder once it set the allowlist (see README).
    disabled: true,
    maintainer: { email: 'prebid@triplelift.com' },
    gvlVendorId: 28,
    capabilities: {
      app: { mediaTypes: ['native'] },
      site: { mediaTypes: ['native'] },
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
    ortbVersion: '2.6',
    openrtb: { gppSupported: true },
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createTripleliftNativeBidder(config),
});
