import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createNextMillenniumBidder } from './nextmillennium.js';

const SYNC_QUERY = 'gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&redirect={{.RedirectURL}}';

export default defineAdapter({
  name: 'nextmillennium',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://pbs.nextmillmedia.com/openrtb2/auction',
    maintainer: { email: 'accountmanagers@nextmillennium.io' },
    gvlVendorId: 1060,
    capabilities: {
      app: { mediaTypes: ['banner', 'video'] },
      site: { mediaTypes: ['banner', 'video'] },
    },
    userSync: {
      iframe: { url: `https://cookies.nextmillmedia.com/sync?${SYNC_QUERY}`, userMacro: '[NMUID]' },
      redirect: { url: `https://cookies.nextmillmedia.com/sync?type=image&${SYNC_QUERY}`, userMacro: '[NMUID]' },
    },
    endpointCompression: 'gzip',
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createNextMillenniumBidder(config),
});
