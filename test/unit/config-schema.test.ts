import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { configSchema, defaultConfig, loadConfig } from '../../core/config/index.js';
import { EEA_COUNTRIES } from '../../core/config/schema.js';
import { configRows, configTable, README_PATH, TABLE_END, TABLE_START, withConfigTable } from '../../scripts/config-docs.js';

describe('configuration schema: the one source of shape, defaults and documentation', () => {
  it("README's configuration table is the one the schema generates (run `npm run docs:config` when this fails)", () => {
    const readme = readFileSync(README_PATH, 'utf8');
    expect(readme).to.include(TABLE_START).and.to.include(TABLE_END);
    expect(withConfigTable(readme)).to.equal(readme);
  });

  it('documents every key the server accepts, maps under a named placeholder', () => {
    const keys = configRows().map((row) => row.key);
    expect(keys).to.include.members(['server.port', 'bidders.<name>.adapter', 'modules.<code>.enabled', 'hooks.hostExecutionPlan', 'hooks.defaultAccountExecutionPlan', 'cache.limits.maxValueBytes', 'admin.port']);
    expect(new Set(keys).size).to.equal(keys.length);
    expect(configTable()).to.include('| `server.maxRequestBytes` | 262144 | Body limit, applied after decompression |');
  });

  it('refuses to document a key that has no description', () => {
    const schema = { type: 'object', properties: { server: { type: 'object', properties: { port: { type: 'integer', default: 1 } } } } };
    expect(() => configRows(schema)).to.throw(/"server\.port" has no description/);
  });

  it('embeds exactly the defaults the server has always had', () => {
    const PURPOSE = { enforcePurpose: true, enforceVendors: true, enforceAlgo: 'full', vendorExceptions: [] };
    expect(defaultConfig).to.deep.equal({
      server: { port: 8000, host: '0.0.0.0', maxRequestBytes: 262144, maxJsonDepth: 64, headersTimeoutMs: 10000, requestTimeoutMs: 30000, workers: 1, shedding: { maxAuctionsInFlight: 1000, maxEventLoopDelayMs: 0, retryAfterSeconds: 1 }, drainTimeoutMs: 5000 },
      logging: { level: 'info', accessLog: { enabled: true, sampleRate: 0.01 } },
      auction: {
        defaultTmaxMs: 1000,
        maxTmaxMs: 3000,
        networkBufferMs: 10,
        responsePrepMs: 15,
        minBidderTimeMs: 10,
        currency: 'USD',
        defaultNamespace: 'svc',
        blockedApps: [],
        generateBidId: false,
        generateRequestId: false,
        autoGenSourceTid: true,
        bidValidations: { bannerCreativeMaxSize: 'skip', secureMarkup: 'skip', maxCreativeWidth: 0, maxCreativeHeight: 0 },
      },
      events: { timeoutMs: 1000, vtrackAllowUnknownBidder: true },
      httpClient: { connectionsPerHost: 128, maxPendingPerHost: 128, keepAliveTimeoutMs: 30000, maxResponseBytes: 1048576 },
      bidders: {},
      plugins: [],
      modules: {},
      hooks: { defaultGroupTimeoutMs: 200 },
      accounts: { required: false, defaults: { debug_allow: true } },
      debug: {},
      storedRequests: { filesystem: { dir: 'stored', watch: true }, cacheTtlSeconds: 300, cacheMaxEntries: 10000, missCacheMs: 1000 },
      cache: { clientLimits: { putsPerSecond: 100, burst: 200, maxClientBytes: 16 * 1024 * 1024 }, memory: { maxBytes: 64 * 1024 * 1024 }, limits: { maxValueBytes: 10240, maxPutsPerRequest: 10, maxTtlSeconds: 3600, defaultTtlSeconds: 3600 } },
      video: { categoryMappings: {}, requireStoredRequest: false, maxImpsPerRequest: 200 },
      amp: { defaultTimeoutMs: 1000, timeoutAdjustmentMs: 0 },
      currency: { rates: {}, refreshSeconds: 1800, staleAfterSeconds: 86400, timeoutMs: 5000 },
      userSync: { cookieTtlDays: 90, uidTtlDays: 14, maxCookieBytes: 4000, optOutCookie: { name: 'uids-optout' } },
      compression: { response: { enableGzip: false, enableBrotli: false, minBytes: 1024 } },
      privacy: {
        gdpr: {
          enabled: true,
          defaultValue: '0',
          eeaCountries: [...EEA_COUNTRIES],
          vendorLists: [],
          vendorListTimeoutMs: 5000,
          nonStandardPublishers: [],
          bidderVendorIds: {},
          tcf2: {
            ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`purpose${i + 1}`, PURPOSE])),
            specialFeature1: { enforce: true, vendorExceptions: [] },
            purposeOneTreatment: { enabled: true, accessAllowed: true },
          },
        },
        ccpa: { enforce: true },
        lmt: { enforce: true },
        coppa: { enforce: true },
        gpp: { enforce: true },
        ipv4: { anonKeepBits: 24 },
        ipv6: { anonKeepBits: 56 },
        trustProxyHeaders: false,
      },
      cors: { allowedOrigins: [] },
      admin: { enabled: true, host: '127.0.0.1', port: 8060, requiredBackends: ['storedData'], inspector: { sampleRate: 0.01, maxAuctions: 50 } },
    });
  });

  it('has a section for every part of the defaults and accepts no other top-level key', () => {
    expect(Object.keys(configSchema.properties)).to.deep.equal(Object.keys(defaultConfig));
    expect(configSchema.additionalProperties).to.equal(false);
  });

  it('keeps defaults beside a value set deep inside a section (merge, not replace)', () => {
    const config = loadConfig({ overrides: { userSync: { optOutCookie: { value: 'yes' } }, cache: { limits: { maxTtlSeconds: 60, defaultTtlSeconds: 60 } } }, env: {} });
    expect(config.userSync.optOutCookie).to.deep.equal({ name: 'uids-optout', value: 'yes' });
    expect(config.cache.limits).to.deep.equal({ maxValueBytes: 10240, maxPutsPerRequest: 10, maxTtlSeconds: 60, defaultTtlSeconds: 60 });
    expect(config.userSync.cookieTtlDays).to.equal(90);
  });

  it('names an unknown key at any depth, maps included, and a value outside an enum', () => {
    expect(() => loadConfig({ overrides: { cache: { limits: { maxTtl: 1 } } }, env: {} })).to.throw(/unknown key "cache\.limits\.maxTtl"/);
    expect(() => loadConfig({ overrides: { bidders: { alpha: { adaptr: 'ortb' } } }, env: {} })).to.throw(/unknown key "bidders\.alpha\.adaptr"/);
    expect(() => loadConfig({ overrides: { logging: { level: 'loud' } }, env: {} })).to.throw(/"logging\.level" must be one of \["trace"/);
  });
});
