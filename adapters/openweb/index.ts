import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createOpenwebBidder } from './openweb.js';

export default defineAdapter({
  name: 'openweb',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    // Prebid Server appends "?publisher_id=<org>" to its endpoint by hand; here the publisher id is a macro.
    endpoint: 'https://pbs.openwebmp.com/pbs?publisher_id={{PublisherId}}',
    maintainer: { email: 'monetization@openweb.com' },
    gvlVendorId: 280,
    capabilities: {
      app: { mediaTypes: ['banner', 'video'] },
      site: { mediaTypes: ['banner', 'video'] },
    },
    userSync: {
      iframe: {
        url: 'https://pbs-cs.openwebmp.com/pbs-iframe?gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}&redirect={{.RedirectURL}}',
        userMacro: '[PBS_UID]',
      },
    },
    modifyingVastXmlAllowed: true,
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createOpenwebBidder(config),
});
