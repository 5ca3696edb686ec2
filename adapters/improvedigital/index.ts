import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createImprovedigitalBidder } from './improvedigital.js';

const MEDIA_TYPES = ['banner', 'video', 'audio', 'native'] as const;

export default defineAdapter({
  name: 'improvedigital',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    // {{PublisherId}} is the publisherId param followed by a slash, or nothing (Prebid Server's `{PublisherId}`).
    endpoint: 'https://ad.360yield.com/{{PublisherId}}pbs',
    maintainer: { email: 'hb@azerion.com' },
    gvlVendorId: 253,
    capabilities: {
      app: { mediaTypes: [...MEDIA_TYPES] },
      site: { mediaTypes: [...MEDIA_TYPES] },
    },
    userSync: {
      iframe: {
        url: 'https://ad.360yield.com/user_sync?rt=html&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&r={{.RedirectURL}}',
        userMacro: '{PUB_USER_ID}',
      },
      redirect: {
        url: 'https://ad.360yield.com/server_match?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&r={{.RedirectURL}}',
        userMacro: '{PUB_USER_ID}',
      },
    },
    endpointCompression: 'gzip',
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createImprovedigitalBidder(config),
});
