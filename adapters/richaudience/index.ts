import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createRichaudienceBidder } from './richaudience.js';

export default defineAdapter({
  name: 'richaudience',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://ortb.richaudience.com/ortb/?bidder=pbs',
    maintainer: { email: 'partnerintegrations@richaudience.com' },
    gvlVendorId: 108,
    capabilities: {
      site: { mediaTypes: ['banner', 'video'] },
      app: { mediaTypes: ['banner', 'video'] },
    },
    userSync: {
      iframe: {
        url: 'https://sync.richaudience.com/74889303289e27f327ad0c6de7be7264/?consentString={{.GDPRConsent}}&r={{.RedirectURL}}',
        userMacro: '[PDID]',
      },
      redirect: {
        url: 'https://sync.richaudience.com/f7872c90c5d3791e2b51f7edce1a0a5d/?p=pbs&consentString={{.GDPRConsent}}&r={{.RedirectURL}}',
        userMacro: '[PDID]',
      },
    },
    modifyingVastXmlAllowed: true,
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createRichaudienceBidder(config),
});
