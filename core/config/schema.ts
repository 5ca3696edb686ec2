import { STAGES } from '../api/index.js';

/**
 * The configuration schema. Every key the host may set is here; `additionalProperties: false` everywhere makes a
 * misspelt key a boot error that names it. Defaults live in `defaults.ts`, not here, so the schema stays a contract.
 */
const hookRef = {
  type: 'object',
  additionalProperties: false,
  required: ['module', 'hook'],
  properties: { module: { type: 'string', minLength: 1 }, hook: { type: 'string', minLength: 1 } },
};
const hookGroup = {
  type: 'object',
  additionalProperties: false,
  required: ['hooks'],
  properties: { timeoutMs: { type: 'integer', minimum: 1 }, hooks: { type: 'array', items: hookRef } },
};
const stagePlan = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(STAGES.map((stage) => [stage, { type: 'array', items: hookGroup }])),
};

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    server: {
      type: 'object',
      additionalProperties: false,
      properties: {
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        host: { type: 'string' },
        maxRequestBytes: { type: 'integer', minimum: 1024 },
        workers: { type: 'integer', minimum: 1, maximum: 64 },
        drainTimeoutMs: { type: 'integer', minimum: 0 },
        externalUrl: { type: 'string' },
      },
    },
    logging: {
      type: 'object',
      additionalProperties: false,
      properties: { level: { enum: ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] } },
    },
    auction: {
      type: 'object',
      additionalProperties: false,
      properties: {
        defaultTmaxMs: { type: 'integer', minimum: 1 },
        maxTmaxMs: { type: 'integer', minimum: 1 },
        /** Time kept back from tmax for the network between bidders and us. */
        networkBufferMs: { type: 'integer', minimum: 0 },
        /** Time kept back from tmax to build and write the response. */
        responsePrepMs: { type: 'integer', minimum: 0 },
        /** A bidder whose share of time would be below this is skipped with a timeout error. */
        minBidderTimeMs: { type: 'integer', minimum: 0 },
        currency: { type: 'string', pattern: '^[A-Z]{3}$' },
        /** Namespace of responses to requests that use neither `ext.svc` nor `ext.prebid`. */
        defaultNamespace: { enum: ['svc', 'prebid'] },
      },
    },
    httpClient: {
      type: 'object',
      additionalProperties: false,
      properties: {
        connectionsPerHost: { type: 'integer', minimum: 1 },
        keepAliveTimeoutMs: { type: 'integer', minimum: 1 },
        maxResponseBytes: { type: 'integer', minimum: 1024 },
      },
    },
    bidders: {
      type: 'object',
      propertyNames: { pattern: '^[A-Za-z0-9_-]+$' },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          adapter: { type: 'string' },
          aliasOf: { type: 'string' },
          endpoint: { type: 'string' },
          enabled: { type: 'boolean' },
          ortbVersion: { enum: ['2.5', '2.6'] },
          extra: { type: 'object' },
        },
      },
    },
    plugins: { type: 'array', items: { type: 'string', minLength: 1 } },
    modules: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: { enabled: { type: 'boolean' }, config: { type: 'object' } },
      },
    },
    hooks: {
      type: 'object',
      additionalProperties: false,
      properties: {
        defaultGroupTimeoutMs: { type: 'integer', minimum: 1 },
        plans: {
          type: 'object',
          additionalProperties: false,
          properties: { auction: stagePlan, amp: stagePlan, video: stagePlan },
        },
      },
    },
    storedRequests: {
      type: 'object',
      additionalProperties: false,
      properties: {
        filesystem: { type: 'object', additionalProperties: false, properties: { dir: { type: 'string' } } },
        postgres: {
          type: 'object',
          additionalProperties: false,
          properties: { url: { type: 'string' }, requestsQuery: { type: 'string' }, impsQuery: { type: 'string' }, accountsQuery: { type: 'string' } },
        },
        http: { type: 'object', additionalProperties: false, properties: { url: { type: 'string' } } },
        cacheTtlSeconds: { type: 'integer', minimum: 0 },
        cacheMaxEntries: { type: 'integer', minimum: 0 },
      },
    },
    cache: {
      type: 'object',
      additionalProperties: false,
      properties: {
        /** An external Prebid Cache (`https://cache.example/cache`); the embedded store is used when absent. */
        url: { type: 'string' },
        /** Where clients fetch cached values; defaults to this server's `/cache` when the embedded store is used. */
        publicUrl: { type: 'string' },
        redis: { type: 'object', additionalProperties: false, required: ['url'], properties: { url: { type: 'string' }, keyPrefix: { type: 'string' } } },
        memory: { type: 'object', additionalProperties: false, properties: { maxBytes: { type: 'integer', minimum: 1024 } } },
        limits: {
          type: 'object',
          additionalProperties: false,
          properties: {
            maxValueBytes: { type: 'integer', minimum: 1 },
            maxPutsPerRequest: { type: 'integer', minimum: 1 },
            maxTtlSeconds: { type: 'integer', minimum: 1 },
            defaultTtlSeconds: { type: 'integer', minimum: 1 },
          },
        },
      },
    },
    video: {
      type: 'object',
      additionalProperties: false,
      properties: {
        /** Category mapping files (paths relative to the working directory), per primary ad server and publisher. */
        categoryMappings: {
          type: 'object',
          additionalProperties: false,
          properties: {
            freewheel: { type: 'string', minLength: 1 },
            dfp: { type: 'string', minLength: 1 },
            freewheelPublishers: { type: 'object', additionalProperties: { type: 'string', minLength: 1 } },
            dfpPublishers: { type: 'object', additionalProperties: { type: 'string', minLength: 1 } },
          },
        },
        /** Refuse video requests without `storedrequestid` (hosted deployments keep the whole request stored). */
        requireStoredRequest: { type: 'boolean' },
        /** Most imps one video request may expand into, across its pods; a pod beyond it is dropped with an error. */
        maxImpsPerRequest: { type: 'integer', minimum: 1 },
      },
    },
    amp: {
      type: 'object',
      additionalProperties: false,
      properties: {
        /** Ceiling of an AMP auction's tmax: AMP's own RTC timeout (spec section 8). */
        defaultTimeoutMs: { type: 'integer', minimum: 1 },
        /** Kept back from an AMP tmax for the latency between the AMP runtime and us; the query's amp_timeout_adjustment_ms overrides it. */
        timeoutAdjustmentMs: { type: 'integer', minimum: 0 },
      },
    },
    currency: {
      type: 'object',
      additionalProperties: false,
      properties: {
        /** Rates pinned by the host, `{FROM: {TO: rate}}`; they win over the fetched file for every pair they price. */
        rates: {
          type: 'object',
          propertyNames: { pattern: '^[A-Za-z]{3}$' },
          additionalProperties: {
            type: 'object',
            propertyNames: { pattern: '^[A-Za-z]{3}$' },
            additionalProperties: { type: 'number', exclusiveMinimum: 0 },
          },
        },
        /** A Prebid currency file (`{"dataAsOf": ..., "conversions": {...}}`), fetched at boot and every refreshSeconds. */
        url: { type: 'string', minLength: 1 },
        refreshSeconds: { type: 'integer', minimum: 1 },
        /** Fetched rates older than this (since the last successful fetch) are no longer used; 0 = never stale. */
        staleAfterSeconds: { type: 'integer', minimum: 0 },
        /** Time limit of one fetch of the currency file. */
        timeoutMs: { type: 'integer', minimum: 1 },
      },
    },
    userSync: {
      type: 'object',
      additionalProperties: false,
      properties: {
        /** Lifetime of the `uids` cookie in the browser (its Max-Age). */
        cookieTtlDays: { type: 'integer', minimum: 1 },
        /** How long one bidder's id stays live after /setuid stored it; then /cookie_sync asks for a fresh one. */
        uidTtlDays: { type: 'integer', minimum: 1 },
        /** Largest `uids=<value>` the server writes; the ids expiring first are dropped to stay under it. */
        maxCookieBytes: { type: 'integer', minimum: 200, maximum: 4096 },
        /** The cookie's Domain attribute (e.g. `gavel.example.com`); host-only when absent. */
        cookieDomain: { type: 'string', minLength: 1 },
        /** A cookie the host sets for users who opted out; its presence (with `value`, if given) stops id writes. */
        optOutCookie: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: { name: { type: 'string', minLength: 1 }, value: { type: 'string', minLength: 1 } },
        },
      },
    },
    cors: {
      type: 'object',
      additionalProperties: false,
      properties: { allowedOrigins: { type: 'array', items: { type: 'string' } } },
    },
    admin: {
      type: 'object',
      additionalProperties: false,
      properties: {
        /** Serve GET /metrics (Prometheus) and GET /health on their own listener. */
        enabled: { type: 'boolean' },
        /** Address of that listener: loopback by default; widen it only behind a firewall. */
        host: { type: 'string', minLength: 1 },
        /** 0 picks a free port (tests); it must differ from server.port. */
        port: { type: 'integer', minimum: 0, maximum: 65535 },
      },
    },
  },
} as const;
