import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createSovrnBidder } from './sovrn.js';

export default defineAdapter({
  name: 'sovrn',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'http://pbs.lijit.com/rtb/bid?src=prebid_server',
    maintainer: { email: 'sovrnoss@sovrn.com' },
    gvlVendorId: 13,
    capabilities: {
      app: { mediaTypes: ['banner', 'video'] },
      site: { mediaTypes: ['banner', 'video'] },
    },
    userSync: {
      redirect: { url: 'https://ap.lijit.com/pixel?redir={{.RedirectURL}}', userMacro: '$UID' },
      iframe: {
        url: 'https://ap.lijit.com/beacon/prebid-server/?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&url={{.RedirectURL}}',
        userMacro: '$UID',
      },
    },
    endpointCompression: 'gzip',
    modifyingVastXmlAllowed: true,
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createSovrnBidder(config),
});
