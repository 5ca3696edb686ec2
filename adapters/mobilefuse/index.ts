import { SDK_VERSION, defineAdapter, readJsonBeside } from '../../core/api/index.js';
import { createMobilefuseBidder } from './mobilefuse.js';

export default defineAdapter({
  name: 'mobilefuse',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'http://mfx.mobilefuse.com/openrtb',
    maintainer: { email: 'prebid@mobilefuse.com' },
    gvlVendorId: 909,
    capabilities: {
      app: { mediaTypes: ['banner', 'video', 'native'] },
      site: { mediaTypes: ['banner', 'video', 'native'] },
    },
    userSync: {
      iframe: { url: 'https://mfx.mobilefuse.com/usync?us_privacy={{.USPrivacy}}&pxurl={{.RedirectURL}}', userMacro: '$UID' },
      redirect: { url: 'https://mfx.mobilefuse.com/getuid?us_privacy={{.USPrivacy}}&redir={{.RedirectURL}}', userMacro: '$UID' },
    },
    ortbVersion: '2.6',
    endpointCompression: 'gzip',
    openrtb: { gppSupported: true },
    // MobileFuse does not operate globally; hosts outside these regions may want to disable it.
    geoscope: ['USA', 'CAN'],
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createMobilefuseBidder(config),
});
