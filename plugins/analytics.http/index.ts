import { defineModule, readJsonBeside, SDK_VERSION } from '../../core/api/index.js';
import { HttpBatcher, type HttpAnalyticsConfig } from './batcher.js';

export { HttpBatcher, HTTP_ANALYTICS_DEFAULTS, type HttpAnalyticsConfig } from './batcher.js';

/** Analytics to a host URL, in gzipped NDJSON batches. */
export default defineModule<HttpAnalyticsConfig>({
  code: 'analytics.http',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  description: 'POSTs every auction, AMP, video, cookie sync, setuid and /event transaction to a host URL in gzipped NDJSON batches.',
  configSchema: readJsonBeside(import.meta.url, './config.schema.json'),
  analytics: (config, deps) => new HttpBatcher(config, deps),
});
