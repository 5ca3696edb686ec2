import { defineAdapter, readJsonBeside, SDK_VERSION, type BidderInfo } from '../../core/api/index.js';
import { createPubmaticBidder } from './pubmatic.js';

const MEDIA_TYPES = ['banner', 'video', 'native'] as const;

const info: BidderInfo = {
  endpoint: 'https://hbopenbid.pubmatic.com/translator?source=prebid-server',
  maintainer: { email: 'header-bidding@pubmatic.com' },
  gvlVendorId: 76,
  capabilities: { site: { mediaTypes: [...MEDIA_TYPES] }, app: { mediaTypes: [...MEDIA_TYPES] } },
  ortbVersion: '2.6',
  endpointCompression: 'gzip',
  openrtb: { gppSupported: true },
  userSync: {
    // PubMatic appends the user id to the end of the iframe's redirect URL, so that one has no macro.
    iframe: {
      url: 'https://ads.pubmatic.com/AdServer/js/user_sync.html?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&predirect={{.RedirectURL}}',
      userMacro: '',
    },
    redirect: {
      url: 'https://image8.pubmatic.com/AdServer/ImgSync?p=159706&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&pu={{.RedirectURL}}',
      userMacro: '#PMUID',
    },
  },
};

export default defineAdapter({
  name: 'pubmatic',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info,
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create(config) {
    return createPubmaticBidder(config.endpoint || info.endpoint!);
  },
});
