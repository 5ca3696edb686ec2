import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createTaboolaBidder } from './taboola.js';

export default defineAdapter({
  name: 'taboola',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    // {{MediaType}} is "display" or "native", {{GvlID}} the host's own GVL id, {{PublisherID}} the publisherId param.
    endpoint: 'https://{{.MediaType}}.bidder.taboola.com/OpenRTB/PS/auction?exchange={{.GvlID}}&publisher={{.PublisherID}}',
    maintainer: { email: 'ps-team@taboola.com' },
    gvlVendorId: 42,
    capabilities: {
      app: { mediaTypes: ['banner', 'native'] },
      site: { mediaTypes: ['banner', 'native'] },
    },
    userSync: {
      redirect: {
        url: 'https://trc.taboola.com/sg/ps/1/cm?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&redirect={{.RedirectURL}}',
        userMacro: '<TUID>',
      },
      iframe: {
        url: 'https://cdn.taboola.com/scripts/ps-sync.html?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&redirect={{.RedirectURL}}',
        userMacro: '<TUID>',
      },
    },
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createTaboolaBidder(config),
});
