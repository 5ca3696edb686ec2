import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createGridBidder } from './grid.js';

export default defineAdapter({
  name: 'grid',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://grid.bidswitch.net/sp_bid?sp=prebid',
    maintainer: { email: 'grid-tech@themediagrid.com' },
    gvlVendorId: 686,
    capabilities: {
      app: { mediaTypes: ['banner', 'video', 'native'] },
      site: { mediaTypes: ['banner', 'video', 'native'] },
    },
    userSync: {
      redirect: {
        url: 'https://x.bidswitch.net/check_uuid/{{.RedirectURL}}?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&us_privacy={{.USPrivacy}}',
        userMacro: '${BSW_UUID}',
      },
    },
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createGridBidder(config),
});
