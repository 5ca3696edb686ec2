import { defineModule, readJsonBeside, SDK_VERSION } from '../../core/api/index.js';
import { createBlockingHooks } from './blocking.js';
import { readBlockingConfig } from './config.js';

/** Prebid Server's ortb2blocking: advertiser, category, app, banner type and creative attribute blocks, signalled and enforced. */
export default defineModule<Record<string, unknown>>({
  code: 'prebid.ortb2blocking',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  description: 'Sends each bidder its badv, bcat/cattax, bapp, btype and battr blocks, and drops bids that carry blocked attributes.',
  stages: ['bidder-request', 'raw-bidder-response'],
  configSchema: readJsonBeside(import.meta.url, './config.schema.json'),
  create(config) {
    const host = config.attributes === undefined ? undefined : readBlockingConfig(config, 'modules.prebid.ortb2blocking.config', []);
    return createBlockingHooks(host);
  },
});
