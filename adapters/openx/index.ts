import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createOpenxBidder } from './openx.js';

export default defineAdapter({
  name: 'openx',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'http://rtb.openx.net/prebid',
    maintainer: { email: 'prebid@openx.com' },
    gvlVendorId: 69,
    capabilities: {
      app: { mediaTypes: ['banner', 'video', 'native'] },
      site: { mediaTypes: ['banner', 'video', 'native'] },
    },
    userSync: {
      iframe: {
        url: 'https://u.openx.net/w/1.0/cm?id=891039ac-a916-42bb-a651-4be9e3b201da&ph=a3aece0c-9e80-4316-8deb-faf804779bd1&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&r={{.RedirectURL}}',
        userMacro: '{OPENX_ID}',
      },
      redirect: {
        url: 'https://rtb.openx.net/sync/prebid?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&r={{.RedirectURL}}',
        userMacro: '${UID}',
      },
    },
    ortbVersion: '2.6',
    endpointCompression: 'gzip',
    openrtb: { gppSupported: true },
    modifyingVastXmlAllowed: true,
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createOpenxBidder(config),
});
