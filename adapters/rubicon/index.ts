import { defineAdapter, readJsonBeside, SDK_VERSION, type BidderInfo } from '../../core/api/index.js';
import { readHostSettings } from './host-settings.js';
import { createRubiconBidder } from './rubicon.js';

const MEDIA_TYPES = ['banner', 'video', 'native'] as const;

/**
 * Magnite serves XAPI from regional hosts (exapi-us-east, exapi-us-west, exapi-apac, exapi-eu
 * `.rubiconproject.com/a/api/exchange`) and enables each host individually, with its own credentials: no endpoint
 * ships, and the bidder stays disabled until the host sets `bidders.rubicon.endpoint` and the XAPI credentials (see
 * README.md). User sync works by redirect once Magnite sets it up for the host, so no sync URL ships here.
 */
const info: BidderInfo = {
  disabled: true,
  maintainer: { email: 'header-bidding@rubiconproject.com' },
  gvlVendorId: 52,
  capabilities: { site: { mediaTypes: [...MEDIA_TYPES] }, app: { mediaTypes: [...MEDIA_TYPES] } },
  ortbVersion: '2.6',
  endpointCompression: 'gzip',
  openrtb: { gppSupported: true },
  geoscope: ['global'],
};

export default defineAdapter({
  name: 'rubicon',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info,
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create(config, deps) {
    return createRubiconBidder(readHostSettings(config, deps.logger));
  },
});
