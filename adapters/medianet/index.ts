import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createMedianetBidder } from './medianet.js';

export default defineAdapter({
  name: 'medianet',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://prebid-adapter.media.net/rtb/pb/prebids2s',
    maintainer: { email: 'prebid-support@media.net' },
    gvlVendorId: 142,
    capabilities: {
      app: { mediaTypes: ['banner', 'video', 'native'] },
      site: { mediaTypes: ['banner', 'video', 'native'] },
    },
    userSync: {
      iframe: {
        url: 'https://hbx.media.net/checksync.php?cid=8CUEHS6F9&cs=87&type=mpbc&cv=37&vsSync=1&uspstring={{.USPrivacy}}&gdpr={{.GDPR}}&gdprstring={{.GDPRConsent}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&redirect={{.RedirectURL}}',
        userMacro: '<vsid>',
      },
      redirect: {
        url: 'https://cs.media.net/cksync.php?cs=1&type=pbs&ovsid=setstatuscode&bidder=medianet&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&redirect={{.RedirectURL}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}',
        userMacro: '<vsid>',
      },
    },
    ortbVersion: '2.6',
    endpointCompression: 'gzip',
    modifyingVastXmlAllowed: true,
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createMedianetBidder(config),
});
