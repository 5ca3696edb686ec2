import type { GavelConfig } from './types.js';

/** The embedded defaults: `npm start` runs on these alone, with no file and no other service. */
export const defaultConfig: GavelConfig = {
  server: {
    port: 8000,
    host: '0.0.0.0',
    maxRequestBytes: 262144,
    workers: 1,
    drainTimeoutMs: 5000,
    externalUrl: 'http://localhost:8000',
  },
  logging: { level: 'info' },
  auction: { defaultTmaxMs: 1000, maxTmaxMs: 3000, networkBufferMs: 10, responsePrepMs: 15, minBidderTimeMs: 10, currency: 'USD', defaultNamespace: 'svc' },
  httpClient: { connectionsPerHost: 128, keepAliveTimeoutMs: 30000, maxResponseBytes: 1048576 },
  bidders: {},
  plugins: [],
  modules: {},
  hooks: { defaultGroupTimeoutMs: 200, plans: {} },
  storedRequests: { filesystem: { dir: 'stored' }, cacheTtlSeconds: 300, cacheMaxEntries: 10000 },
  cache: { memory: { maxBytes: 64 * 1024 * 1024 }, limits: { maxValueBytes: 10240, maxPutsPerRequest: 10, maxTtlSeconds: 3600, defaultTtlSeconds: 3600 } },
  video: { categoryMappings: {}, requireStoredRequest: false, maxImpsPerRequest: 200 },
  amp: { defaultTimeoutMs: 1000, timeoutAdjustmentMs: 0 },
  // No feed by default: `npm start` must not depend on another service. Set currency.url to fetch one.
  currency: { rates: {}, refreshSeconds: 1800, staleAfterSeconds: 86400, timeoutMs: 5000 },
  userSync: { cookieTtlDays: 90, uidTtlDays: 14, maxCookieBytes: 4000, optOutCookie: { name: 'uids-optout' } },
  cors: { allowedOrigins: [] },
  // Loopback only: metrics and health are for the host's own agents, never for the public.
  admin: { enabled: true, host: '127.0.0.1', port: 8060 },
};
