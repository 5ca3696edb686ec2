import { defineAdapter, readJsonBeside, SDK_VERSION } from '../../core/api/index.js';
import { createOrtbBidder } from './ortb.js';

/**
 * `ortb`: the generic OpenRTB adapter. It has no endpoint of its own: a host declares bidders on it by config,
 * `bidders: { alpha: { adapter: ortb, endpoint: "https://..." } }`, as many as it likes.
 */
export default defineAdapter({
  name: 'ortb',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    maintainer: { email: 'maintainers@gavel.dev' },
    capabilities: {
      site: { mediaTypes: ['banner', 'video', 'audio', 'native'] },
      app: { mediaTypes: ['banner', 'video', 'audio', 'native'] },
      dooh: { mediaTypes: ['banner', 'video', 'audio', 'native'] },
    },
    ortbVersion: '2.5',
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createOrtbBidder(config),
});
