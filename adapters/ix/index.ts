import { SDK_VERSION, defineAdapter, readJsonBeside, type BidderInfo } from '../../core/api/index.js';
import { createIxBidder, ixSettingsFrom } from './ix.js';

const info: BidderInfo = {
  // Index Exchange issues each host its own endpoint, so none ships (Prebid Server ships none either) and the bidder
  // stays disabled until the host sets `bidders.ix.endpoint`.
  disabled: true,
  maintainer: { email: 'pdu-supply-prebid@indexexchange.com' },
  gvlVendorId: 10,
  capabilities: {
    site: { mediaTypes: ['banner', 'video', 'native', 'audio'] },
    app: { mediaTypes: ['banner', 'video', 'native', 'audio'] },
  },
  userSync: {
    // Index Exchange appends the user id to the end of the redirect URL itself, so there is no user macro.
    redirect: {
      url: 'https://ssum.casalemedia.com/usermatchredir?s=194962&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gppsid={{.GPPSID}}&cb={{.RedirectURL}}',
      userMacro: '',
    },
    iframe: {
      url: 'https://ssum-sec.casalemedia.com/usermatch?s=184674&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&us_privacy={{.USPrivacy}}&gpp={{.GPP}}&gppsid={{.GPPSID}}&cb={{.RedirectURL}}',
    },
  },
  ortbVersion: '2.6',
  endpointCompression: 'none',
  openrtb: { gppSupported: true },
};

export default defineAdapter({
  name: 'ix',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info,
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createIxBidder(ixSettingsFrom(config)),
});
