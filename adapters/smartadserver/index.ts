import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createSmartadserverBidder } from './smartadserver.js';

export default defineAdapter({
  name: 'smartadserver',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    // {{.Host}} is filled by the adapter: "ssb-global" for the standard calls, "prebid-global" for programmatic
    // guaranteed ones (see the README).
    endpoint: 'https://{{.Host}}.smartadserver.com',
    maintainer: { email: 'supply-partner-integration@equativ.com' },
    gvlVendorId: 45,
    capabilities: {
      app: { mediaTypes: ['banner', 'video', 'native', 'audio'] },
      site: { mediaTypes: ['banner', 'video', 'native', 'audio'] },
    },
    userSync: {
      redirect: {
        url: 'https://ssbsync-global.smartadserver.com/api/sync?callerId=5&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&redirectUri={{.RedirectURL}}',
        userMacro: '[ssb_sync_pid]',
      },
    },
    endpointCompression: 'gzip',
    geoscope: ['global'],
    openrtb: { gppSupported: true },
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createSmartadserverBidder(config),
});
