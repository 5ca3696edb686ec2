import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createOnetagBidder } from './onetag.js';

const MEDIA_TYPES = ['banner', 'video', 'native'] as const;

export default defineAdapter({
  name: 'onetag',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    // {{PublisherID}} is the pubId param (one per request).
    endpoint: 'https://prebid-server.onetag-sys.com/prebid-server/{{.PublisherID}}',
    maintainer: { email: 'devops@onetag.com' },
    gvlVendorId: 241,
    capabilities: {
      app: { mediaTypes: [...MEDIA_TYPES] },
      site: { mediaTypes: [...MEDIA_TYPES] },
    },
    userSync: {
      iframe: {
        url: 'https://onetag-sys.com/usync/?redir={{.RedirectURL}}&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}',
        userMacro: '${USER_TOKEN}',
      },
      redirect: {
        url: 'https://onetag-sys.com/usync/?tag=img&redir={{.RedirectURL}}&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}',
        userMacro: '${USER_TOKEN}',
      },
    },
    ortbVersion: '2.6',
    endpointCompression: 'gzip',
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createOnetagBidder(config),
});
