import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createAmxBidder } from './amx.js';

const SYNC_QUERY = 'gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&s=pbs&cb={{.RedirectURL}}';

export default defineAdapter({
  name: 'amx',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'http://pbs.amxrtb.com/auction/openrtb',
    maintainer: { email: 'prebid@amxrtb.com' },
    gvlVendorId: 737,
    capabilities: {
      site: { mediaTypes: ['banner', 'video', 'native'] },
      app: { mediaTypes: ['banner', 'video', 'native'] },
    },
    userSync: {
      iframe: { url: `https://prebid.a-mo.net/isyn?${SYNC_QUERY}`, userMacro: '$UID' },
      redirect: { url: `https://prebid.a-mo.net/cchain/0?${SYNC_QUERY}`, userMacro: '$UID' },
    },
    endpointCompression: 'gzip',
    openrtb: { gppSupported: true },
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createAmxBidder(config),
});
