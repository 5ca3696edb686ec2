import { Type, type SchemaOptions, type Static, type TSchema } from '@sinclair/typebox';
import { STAGES } from '../api/index.js';
import { accountSchema } from '../accounts/account-schema.js';

/**
 * The configuration schema: the one place the configuration's shape, its defaults (`default`) and its documentation
 * (`description`) live. The TypeScript types (types.ts) are derived from it, the embedded defaults (defaults.ts)
 * are read from it, ajv validates against it at boot, and `npm run docs:config` writes the README's table from it.
 *
 * `additionalProperties: false` everywhere makes a misspelt key a boot error that names it. A section carries
 * `default: {}` so that its keys' defaults are filled in even when nothing in it is set.
 *
 * Documentation rule (scripts/config-table.ts): a node with a `description` is one row of the README table and
 * stands for everything below it; a node without one is a section, and its children are listed instead. Under a
 * map, `x-key` names the placeholder of the map's keys (`bidders.<name>.adapter`).
 */

const closed = { additionalProperties: false } as const;

/** A section: closed, and present with its defaults when the host sets nothing in it. */
function Section<T extends Record<string, TSchema>>(properties: T, options: SchemaOptions = {}) {
  return Type.Object(properties, { ...closed, default: {}, ...options });
}

/** One of a few strings; `enum` (not TypeBox's anyOf of literals) so that ajv's message lists the choices. */
function OneOf<const T extends readonly string[]>(values: T, options: SchemaOptions = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A map from host-chosen names to values of one schema (`bidders`, `modules`). */
function MapOf<T extends TSchema>(value: T, options: SchemaOptions & { keyPattern?: string; key?: string } = {}) {
  const { keyPattern, key, ...rest } = options;
  return Type.Unsafe<Record<string, Static<T>>>({
    type: 'object',
    ...(keyPattern && { propertyNames: { pattern: keyPattern } }),
    additionalProperties: value,
    ...(key && { 'x-key': key }),
    ...rest,
  });
}

/** A JSON object whose content a plugin, not the core, checks. */
function FreeObject(options: SchemaOptions = {}) {
  return Type.Unsafe<Record<string, unknown>>({ type: 'object', ...options });
}

/** Prebid Server's default EEA list (`gdpr.eea_countries`). */
export const EEA_COUNTRIES = [
  'ALA', 'AUT', 'BEL', 'BGR', 'HRV', 'CYP', 'CZE', 'DNK', 'EST', 'FIN', 'FRA', 'GUF', 'DEU', 'GIB', 'GRC', 'GLP', 'GGY', 'HUN', 'ISL', 'IRL', 'IMN', 'ITA', 'JEY', 'LVA',
  'LIE', 'LTU', 'LUX', 'MLT', 'MTQ', 'MYT', 'NLD', 'NOR', 'POL', 'PRT', 'REU', 'ROU', 'BLM', 'MAF', 'SPM', 'SVK', 'SVN', 'ESP', 'SWE', 'GBR',
] as const;

/** The activities a host or account controls (`privacy.allowactivities`); `transmitTid` is Prebid Server's spelling. */
export const ACTIVITY_NAMES = ['syncUser', 'fetchBids', 'enrichUfpd', 'reportAnalytics', 'transmitUfpd', 'transmitPreciseGeo', 'transmitEids', 'transmitTids', 'transmitTid', 'transmitUniqueRequestIds'] as const;

/** One activity's rules: the first rule whose condition matches decides, else `default` (true when absent). */
export interface ActivityConfig {
  default?: boolean;
  rules?: Array<{ allow?: boolean; condition?: { componentType?: string[]; componentName?: string[]; gppSid?: number[]; geo?: string[] } }>;
}

const ACTIVITY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    default: { type: 'boolean' },
    rules: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          allow: { type: 'boolean' },
          condition: {
            type: 'object',
            additionalProperties: false,
            properties: {
              componentType: { type: 'array', items: { type: 'string' } },
              componentName: { type: 'array', items: { type: 'string' } },
              gppSid: { type: 'array', items: { type: 'integer' } },
              geo: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    },
  },
};

function purposeSection() {
  return Section({
    enforcePurpose: Type.Boolean({ default: true }),
    enforceVendors: Type.Boolean({ default: true }),
    enforceAlgo: OneOf(['full', 'basic'] as const, { default: 'full' }),
    vendorExceptions: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
  });
}

const Port = (options: SchemaOptions) => Type.Integer({ minimum: 0, maximum: 65535, ...options });

/**
 * An execution plan in Prebid Server's shape (`endpoints.<path>.stages.<stage>.groups[].hook_sequence[]`), so that a
 * Prebid Server host's plans carry over: stage names may be spelt with `_`, as Prebid Server spells them.
 */
export const HookGroupSchema = Type.Object(
  {
    timeout: Type.Optional(Type.Integer({ minimum: 1 })),
    hook_sequence: Type.Array(Type.Object({ module_code: Type.String({ minLength: 1 }), hook_impl_code: Type.String({ minLength: 1 }) }, closed)),
  },
  closed,
);
const STAGE_KEYS = [...new Set([...STAGES, ...STAGES.map((stage) => stage.replaceAll('-', '_'))])];
const PLAN_ENDPOINT_PATHS = ['/openrtb2/auction', '/openrtb2/amp', '/openrtb2/video'] as const;

/**
 * Keys from a closed list, each mapping to one schema. Written with `propertyNames` rather than a property per key
 * so that ajv compiles the value schema once: a property per stage and endpoint made the config's validator some
 * 50 MB of generated code.
 */
function KeyedBy<T extends TSchema>(keys: readonly string[], value: T) {
  return Type.Unsafe<Record<string, Static<T>>>({ type: 'object', propertyNames: { enum: [...keys] }, additionalProperties: value });
}

const EndpointPlanSchema = Type.Object(
  { stages: Type.Optional(KeyedBy(STAGE_KEYS, Type.Object({ groups: Type.Optional(Type.Array(HookGroupSchema)) }, closed))) },
  closed,
);
export const ExecutionPlanSchema = Type.Object(
  {
    endpoints: Type.Optional(
      Type.Unsafe<Partial<Record<(typeof PLAN_ENDPOINT_PATHS)[number], Static<typeof EndpointPlanSchema>>>>(KeyedBy(PLAN_ENDPOINT_PATHS, EndpointPlanSchema)),
    ),
  },
  closed,
);

/** One way a bidder syncs: its URL (with macros) and the placeholder its server replaces with the user's id. */
const SyncEndpointSchema = Type.Object(
  {
    url: Type.String({ minLength: 1, pattern: '^https?://' }),
    userMacro: Type.Optional(Type.String()),
  },
  closed,
);

/**
 * User sync of a bidder declared in config (an `ortb` bidder has no adapter manifest to ship one). Macros as Prebid
 * Server spells them (`{{.RedirectURL}}`, `{{.GDPR}}`, `{{.GDPRConsent}}`, `{{.USPrivacy}}`, `{{.GPP}}`, `{{.GPPSID}}`)
 * or as Prebid Server Java does (`{{redirect_url}}`, `{{gdpr}}`, `{{gdpr_consent}}`, `{{us_privacy}}`, `{{gpp}}`,
 * `{{gpp_sid}}`).
 */
const BidderUserSyncSchema = Type.Object(
  {
    key: Type.Optional(Type.String({ minLength: 1, pattern: '^[A-Za-z0-9_.-]+$' })),
    iframe: Type.Optional(SyncEndpointSchema),
    redirect: Type.Optional(SyncEndpointSchema),
    supportCors: Type.Optional(Type.Boolean()),
  },
  {
    ...closed,
    description:
      "User sync: `iframe` and/or `redirect` `{url, userMacro}` (URL macros `{{.RedirectURL}}` or `{{redirect_url}}`, `{{.GDPR}}`, `{{.GDPRConsent}}`, `{{.USPrivacy}}`, `{{.GPP}}`, `{{.GPPSID}}`), `key` in the `uids` cookie (default: the bidder's name), `supportCors`; replaces the adapter's own",
  },
);

export const BidderEntrySchema = Type.Object(
  {
    adapter: Type.Optional(Type.String({ description: 'The adapter whose code serves this bidder: declares a new bidder on an installed adapter (e.g. `ortb`)' })),
    aliasOf: Type.Optional(Type.String({ description: 'Declares this bidder as an alias of another bidder' })),
    endpoint: Type.Optional(Type.String({ description: "Replaces the adapter's endpoint (its `{{macros}}` included)" })),
    enabled: Type.Optional(Type.Boolean({ description: 'Switches the bidder off (false) or on' })),
    ortbVersion: Type.Optional(OneOf(['2.5', '2.6'] as const, { description: 'OpenRTB version the bidder is sent' })),
    extra: Type.Optional(FreeObject({ description: 'Host settings the adapter reads' })),
    modifyingVastXmlAllowed: Type.Optional(Type.Boolean({ description: "Whether event tracking may be inserted into the bidder's VAST (replaces the adapter's own setting)" })),
    userSync: Type.Optional(BidderUserSyncSchema),
    debug: Type.Optional(
      Type.Object(
        {
          allow: Type.Boolean({
            description: "false: the bidder's calls are left out of `ext.debug.httpcalls` (with warning 10003) unless the host's debug override header is sent",
          }),
        },
        {
          ...closed,
          description:
            "Prebid Server's bidder-info `debug`: `{allow: false}` leaves the bidder's calls out of `ext.debug.httpcalls` (warning 10003) unless the debug override header is sent; replaces the adapter's own",
        },
      ),
    ),
  },
  closed,
);

export const configSchema = Type.Object(
  {
    server: Section({
      port: Port({ default: 8000, description: 'Port of the public listener' }),
      host: Type.String({ default: '0.0.0.0', description: 'Address of the public listener' }),
      maxRequestBytes: Type.Integer({ minimum: 1024, default: 262144, description: 'Body limit, applied after decompression' }),
      maxJsonDepth: Type.Integer({ minimum: 8, maximum: 1000, default: 64, description: 'Deepest nesting of arrays and objects a JSON body may have; deeper is a 400 naming the limit' }),
      headersTimeoutMs: Type.Integer({ minimum: 100, default: 10000, description: 'Time a client has to send a request\'s headers before its connection is closed (408)' }),
      requestTimeoutMs: Type.Integer({ minimum: 100, default: 30000, description: 'Time a client has to send a whole request, body included, before its connection is closed (408); at least `headersTimeoutMs`' }),
      workers: Type.Integer({ minimum: 1, maximum: 64, default: 1, description: 'Worker processes on one port (node:cluster, shared nothing)' }),
      shedding: Section({
        maxAuctionsInFlight: Type.Integer({
          minimum: 0,
          default: 1000,
          description: 'Past this many auctions in flight (`/openrtb2/*`), an auction is answered 503 with Retry-After before its body is read; 0 switches it off',
        }),
        maxEventLoopDelayMs: Type.Integer({
          minimum: 0,
          default: 0,
          description: "While the event loop's delay (the worst over the last second) is above this, auctions are answered 503 with Retry-After; 0 (default) switches it off",
        }),
        retryAfterSeconds: Type.Integer({ minimum: 1, default: 1, description: 'The Retry-After of a shed auction' }),
      }),
      drainTimeoutMs: Type.Integer({ minimum: 0, default: 5000, description: 'On SIGTERM/SIGINT: stop accepting, finish in-flight auctions, exit within this' }),
      externalUrl: Type.String({
        description: "Public address (the embedded cache's public URL, user sync redirects); `http://localhost:<server.port>` when not set",
      }),
      gvlId: Type.Optional(Type.Integer({ minimum: 1, description: "The host company's IAB GVL vendor id; with it (or `server.dataCenter`) every bidder receives `ext.<ns>.server` {externalurl, gvlid, datacenter}" })),
      dataCenter: Type.Optional(Type.String({ minLength: 1, description: 'The data centre this instance runs in, sent to bidders in `ext.<ns>.server`' })),
    }),
    logging: Section({
      level: OneOf(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const, { default: 'info', description: 'pino level' }),
      accessLog: Section({
        enabled: Type.Boolean({ default: true, description: 'One `access` line per request (method, path, status, duration, account, bidders, bytes), whatever the level' }),
        sampleRate: Type.Number({ minimum: 0, maximum: 1, default: 0.01, description: 'Share of requests given an access line (answers of 500 and above always are); 1 logs every request, at about 40 µs of CPU each when stdout is a pipe' }),
      }),
    }),
    auction: Section({
      defaultTmaxMs: Type.Integer({ minimum: 1, default: 1000, description: 'tmax of a request that has none; at most `auction.maxTmaxMs`' }),
      maxTmaxMs: Type.Integer({ minimum: 1, default: 3000, description: 'Cap on a request\'s tmax' }),
      networkBufferMs: Type.Integer({ minimum: 0, default: 10, description: 'Kept back from tmax for the network between bidders and Gavel' }),
      responsePrepMs: Type.Integer({ minimum: 0, default: 15, description: 'Kept back from tmax to build and write the response' }),
      minBidderTimeMs: Type.Integer({ minimum: 0, default: 10, description: 'A bidder call with less time than this left is not made (error 12, Prebid Server\'s bidder_response_duration_min_ms)' }),
      currency: Type.String({ pattern: '^[A-Z]{3}$', default: 'USD', description: 'Auction currency' }),
      defaultNamespace: OneOf(['svc', 'prebid'] as const, { default: 'svc', description: 'Response namespace for requests that use neither `ext.svc` nor `ext.prebid`' }),
      blockedApps: Type.Array(Type.String({ minLength: 1 }), { default: [], description: 'App ids (`app.id`) whose requests are refused with a 503' }),
      hostSchainNode: Type.Optional(
        Type.Object(
          {
            asi: Type.String({ minLength: 1 }),
            sid: Type.String({ minLength: 1 }),
            rid: Type.Optional(Type.String()),
            name: Type.Optional(Type.String()),
            domain: Type.Optional(Type.String()),
            hp: Type.Optional(Type.Integer({ minimum: 0, maximum: 1 })),
            ext: Type.Optional(FreeObject()),
          },
          { ...closed, description: "The host's supply chain node (`{asi, sid, rid, hp...}`), appended to the chain each bidder receives: its chain from `ext.prebid.schains`, or else a new chain of this node alone (version 1.0) in place of the request's `source.schain`, as Prebid Server writes it" },
        ),
      ),
      generateBidId: Type.Boolean({ default: false, description: 'Give every bid an id of the host (`ext.<ns>.bidid`, a UUID), which event URLs then carry' }),
      generateRequestId: Type.Boolean({
        default: false,
        description: "Replace the id of an AMP request, and of an app request naming a stored request (whose stored request is then laid over the body, as for `{{UUID}}`), with a random UUID, and give those requests and AMP ones new tids (Prebid Server's `generate_request_id`)",
      }),
      autoGenSourceTid: Type.Boolean({ default: true, description: 'Give a request without `source.tid`, or with `{{UUID}}` there, a random one, and each imp without `ext.tid` (or `{{UUID}}`) its own (Prebid Server\'s `auto_gen_source_tid`)' }),
      bidValidations: Section({
        bannerCreativeMaxSize: OneOf(['skip', 'warn', 'enforce'] as const, {
          default: 'skip',
          description: 'Banner bids larger than `maxCreativeWidth` x `maxCreativeHeight`: dropped (`enforce`) or reported (`warn`); an account\'s `validations.banner_creative_max_size` overrides it',
        }),
        secureMarkup: OneOf(['skip', 'warn', 'enforce'] as const, { default: 'skip', description: 'Banner and video bids with `http:` markup for a secure imp: dropped (`enforce`) or reported (`warn`)' }),
        maxCreativeWidth: Type.Integer({ minimum: 0, default: 0, description: 'Widest banner creative allowed when the size check is on' }),
        maxCreativeHeight: Type.Integer({ minimum: 0, default: 0, description: 'Tallest banner creative allowed when the size check is on' }),
      }),
    }),
    events: Section({
      timeoutMs: Type.Integer({ minimum: 1, default: 1000, description: 'Time limit of what `GET /event` and `POST /vtrack` wait for: reading the account, and the bid cache' }),
      vtrackAllowUnknownBidder: Type.Boolean({ default: true, description: '`POST /vtrack` inserts impression tracking into the VAST of bidders this host does not know' }),
    }),
    httpClient: Section({
      connectionsPerHost: Type.Integer({ minimum: 1, default: 128, description: 'Bidder connection pool size per origin' }),
      maxPendingPerHost: Type.Integer({
        minimum: 0,
        default: 128,
        description: 'Bidder calls that may wait for a free connection per origin; past it a call fails at once (a timeout, code 1) and counts in `gavel_shed_total`',
      }),
      keepAliveTimeoutMs: Type.Integer({ minimum: 1, default: 30000, description: 'Idle time before a pooled bidder connection is closed' }),
      maxResponseBytes: Type.Integer({ minimum: 1024, default: 1048576, description: 'Largest bidder response read; a larger one is a bidder error' }),
    }),
    bidders: MapOf(BidderEntrySchema, { keyPattern: '^[A-Za-z0-9_-]+$', key: 'name', default: {} }),
    plugins: Type.Array(Type.String({ minLength: 1 }), { default: [], description: 'npm packages (exact names, or local paths) to load as plugins' }),
    modules: MapOf(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean({ description: 'Switch a module on (built-ins are on unless switched off)' })),
          config: Type.Optional(FreeObject({ description: "The module's configuration, checked against its own schema" })),
        },
        closed,
      ),
      { key: 'code', default: {} },
    ),
    hooks: Section({
      defaultGroupTimeoutMs: Type.Integer({ minimum: 1, default: 200, description: 'Time box of a hook group' }),
      hostExecutionPlan: Type.Optional(
        Type.Intersect([ExecutionPlanSchema], {
          description: "Hooks run for every request, in Prebid Server's plan shape: `endpoints.<path>.stages.<stage>.groups[{timeout, hook_sequence: [{module_code, hook_impl_code}]}]`",
        }),
      ),
      defaultAccountExecutionPlan: Type.Optional(
        Type.Intersect([ExecutionPlanSchema], { description: 'Hooks run after the host plan for requests whose account has no plan of its own (same shape)' }),
      ),
    }),
    accounts: Section({
      required: Type.Boolean({
        default: false,
        description: "Refuse a request that names no account (400 naming the field to set); an unknown account id still runs on the defaults. Prebid Server's `account_required`",
      }),
      defaults: Type.Intersect([accountSchema({ closed: true, executionPlan: ExecutionPlanSchema })], {
        default: { debug_allow: true },
        description:
          "Host defaults merged under every account (and used alone for requests naming none), in Prebid Server's account JSON shape (`debug_allow`, `price_granularity`, `cache_ttl`, `gdpr`, `ccpa`, `privacy`, `price_floors`, `events`, `validations`...; see [docs/accounts.md](docs/accounts.md)). Accounts themselves are stored data: `accounts/<id>.json`, or the PostgreSQL or HTTP backend",
      }),
    }),
    debug: Section({
      overrideToken: Type.Optional(
        Type.String({
          minLength: 8,
          description: "A secret that, sent as the `X-Pbs-Debug-Override` header, turns debug output on for that request whatever its account allows (Prebid Server's `debug.override_token`)",
        }),
      ),
    }),
    storedRequests: Section({
      filesystem: Type.Optional(
        Section({
          dir: Type.Optional(Type.String({ default: 'stored', description: 'Folder of `requests/<id>.json`, `imps/<id>.json`, `accounts/<id>.json`, `responses/<id>.json`' })),
          watch: Type.Optional(Type.Boolean({ default: true, description: 'Watch the folder and drop changed files from the cache at once' })),
        }),
      ),
      postgres: Type.Optional(
        Type.Object(
          {
            url: Type.Optional(Type.String({ description: 'Read stored data from PostgreSQL (wins over the folder); `gavel db migrate` creates the schema' })),
            table: Type.Optional(Type.String({ default: 'stored_requests', description: 'The stored-data table (`gavel db migrate` creates it)' })),
            requestsQuery: Type.Optional(Type.String({ description: 'Replaces the query reading stored requests' })),
            impsQuery: Type.Optional(Type.String({ description: 'Replaces the query reading stored imps' })),
            accountsQuery: Type.Optional(Type.String({ description: 'Replaces the query reading accounts' })),
            responsesQuery: Type.Optional(Type.String({ description: 'Replaces the query reading stored responses' })),
            poolSize: Type.Optional(Type.Integer({ minimum: 1, default: 5, description: 'Connections per worker process (plus one for change notifications)' })),
            connectTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, default: 1000, description: 'Longest wait for a connection (to connect, or for a free one)' })),
            statementTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, default: 1000, description: 'Longest a query may run (server `statement_timeout`, and the client stops waiting)' })),
            idleTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, default: 30000, description: 'An idle connection is closed after this' })),
            listen: Type.Optional(Type.Boolean({ default: true, description: 'LISTEN for the change notifications of the migration\'s trigger' })),
            pollIntervalMs: Type.Optional(Type.Integer({ minimum: 0, default: 1000, description: 'Poll `updated_at` for changes this often while notifications are not coming in; 0 = never' })),
            changesQuery: Type.Optional(Type.String({ description: 'Replaces the poll query: `$1` epoch seconds, rows `kind`, `id`, `at` (epoch seconds)' })),
            healthCheckIntervalMs: Type.Optional(Type.Integer({ minimum: 0, default: 2000, description: 'Probe the database this often for readiness; 0 = only requests tell' })),
          },
          closed,
        ),
      ),
      http: Type.Optional(
        Type.Object(
          {
            url: Type.Optional(Type.String({ description: 'Read stored data from an HTTP service' })),
            timeoutMs: Type.Optional(Type.Integer({ minimum: 1, default: 1000, description: 'Time limit of one call' })),
            eventsUrl: Type.Optional(Type.String({ description: 'Asked `?last-modified=<time>` for the ids changed since, which are dropped from the cache' })),
            eventsIntervalMs: Type.Optional(Type.Integer({ minimum: 100, default: 1000, description: 'How often `eventsUrl` is asked' })),
          },
          closed,
        ),
      ),
      cacheTtlSeconds: Type.Integer({ minimum: 0, default: 300, description: 'In-memory cache of fetched ids; 0 turns it off (changes reported by the backend drop entries at once)' }),
      cacheMaxEntries: Type.Integer({ minimum: 0, default: 10000, description: 'Most ids that cache holds' }),
      missCacheMs: Type.Integer({ minimum: 0, default: 1000, description: 'How long an id the backend did not have is remembered as missing' }),
    }),
    cache: Section({
      url: Type.Optional(Type.String({ description: 'An external Prebid Cache (`https://cache.example/cache`); the embedded store is used when absent' })),
      publicUrl: Type.Optional(Type.String({ description: 'Where clients fetch cached bids (`hb_cache_host`/`hb_cache_path`); `<server.externalUrl>/cache` when the embedded store is used' })),
      redis: Type.Optional(
        Type.Object(
          {
            url: Type.Optional(Type.String({ description: 'Make the embedded store Redis-backed (shared by several Gavel instances): one server' })),
            cluster: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: 'Redis Cluster instead: some of its nodes (`redis://host:port`)' })),
            sentinel: Type.Optional(
              Type.Object(
                {
                  name: Type.String({ minLength: 1 }),
                  sentinels: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
                  password: Type.Optional(Type.String()),
                },
                { ...closed, description: 'Redis Sentinel instead: the master `name` and `sentinels` (`host:port`)' },
              ),
            ),
            keyPrefix: Type.Optional(Type.String({ description: 'Prefix of the Redis keys' })),
            commandTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, default: 1000, description: 'Longest one Redis command may take' })),
            breakerFailures: Type.Optional(Type.Integer({ minimum: 1, default: 3, description: 'Failures in a row after which caching is skipped (a warning in the answer)' })),
            healthCheckIntervalMs: Type.Optional(Type.Integer({ minimum: 100, default: 1000, description: 'Redis is pinged this often: a failed ping skips caching, the first answer resumes it' })),
          },
          closed,
        ),
      ),
      clientLimits: Section({
        putsPerSecond: Type.Integer({ minimum: 0, default: 100, description: '`POST /cache` requests per second one client (address) may make, past a burst; more get a 429 with Retry-After. 0 switches it off' }),
        burst: Type.Integer({ minimum: 1, default: 200, description: '`POST /cache` requests one client may make at once before `putsPerSecond` applies' }),
        maxClientBytes: Type.Integer({
          minimum: 0,
          default: 16 * 1024 * 1024,
          description: "Bytes one client's live values may take in the embedded store; past it its puts get a 429, so its burst never pushes out others' entries. 0 switches it off",
        }),
      }),
      memory: Type.Optional(Section({ maxBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 4294967296, default: 64 * 1024 * 1024, description: 'Size of the embedded memory store: one buffer that holds every cached value, key and expiry' })) })),
      limits: Type.Optional(
        Section({
          maxValueBytes: Type.Optional(Type.Integer({ minimum: 1, default: 10240, description: 'Largest value one put may store' })),
          maxPutsPerRequest: Type.Optional(Type.Integer({ minimum: 1, default: 10, description: 'Most values per `POST /cache`' })),
          maxTtlSeconds: Type.Optional(Type.Integer({ minimum: 1, default: 3600, description: 'Cap on a value\'s TTL' })),
          defaultTtlSeconds: Type.Optional(Type.Integer({ minimum: 1, default: 3600, description: 'TTL of a value that asks for none' })),
        }),
      ),
    }),
    video: Section({
      categoryMappings: Section(
        {
          freewheel: Type.Optional(Type.String({ minLength: 1 })),
          dfp: Type.Optional(Type.String({ minLength: 1 })),
          freewheelPublishers: Type.Optional(MapOf(Type.String({ minLength: 1 }))),
          dfpPublishers: Type.Optional(MapOf(Type.String({ minLength: 1 }))),
        },
        { description: 'Ad-server brand-category mapping files (`freewheel`, `dfp`, and per publisher `freewheelPublishers`, `dfpPublishers`) for video pods and `targeting.includebrandcategory`; paths relative to the working directory' },
      ),
      requireStoredRequest: Type.Boolean({ default: false, description: 'Refuse video requests without `storedrequestid` (hosted deployments keep the whole request stored)' }),
      maxImpsPerRequest: Type.Integer({ minimum: 1, default: 200, description: 'Most imps one video request may expand into, across its pods; a pod beyond it is dropped with an error' }),
    }),
    amp: Section({
      defaultTimeoutMs: Type.Integer({ minimum: 1, default: 1000, description: "Ceiling of an AMP auction's tmax: AMP's own RTC timeout" }),
      timeoutAdjustmentMs: Type.Integer({ minimum: 0, default: 0, description: "Kept back from an AMP tmax for the latency between the AMP runtime and Gavel; the query's `amp_timeout_adjustment_ms` overrides it" }),
    }),
    currency: Section({
      rates: MapOf(MapOf(Type.Number({ exclusiveMinimum: 0 }), { keyPattern: '^[A-Za-z]{3}$' }), {
        keyPattern: '^[A-Za-z]{3}$',
        default: {},
        description: 'Rates pinned by the host, `{FROM: {TO: rate}}`; they win over the fetched file for every pair they price (see [docs/currency.md](docs/currency.md))',
      }),
      url: Type.Optional(Type.String({ minLength: 1, description: 'A Prebid currency file (`{"dataAsOf": ..., "conversions": {...}}`), fetched at boot and every `refreshSeconds`; none by default, so `npm start` depends on no other service' })),
      refreshSeconds: Type.Integer({ minimum: 1, default: 1800, description: 'Refresh period of the fetched rates' }),
      staleAfterSeconds: Type.Integer({ minimum: 0, default: 86400, description: 'Fetched rates older than this (since the last successful fetch) are no longer used; 0 = never stale' }),
      timeoutMs: Type.Integer({ minimum: 1, default: 5000, description: 'Time limit of one fetch of the currency file' }),
    }),
    userSync: Section({
      cookieTtlDays: Type.Integer({ minimum: 1, default: 90, description: 'Lifetime of the `uids` cookie in the browser (its Expires)' }),
      uidTtlDays: Type.Integer({ minimum: 1, default: 14, description: "How long one bidder's id stays live after /setuid stored it; then /cookie_sync asks for a fresh one" }),
      maxCookieBytes: Type.Integer({ minimum: 200, maximum: 4096, default: 4000, description: 'Largest `uids=<value>` written; the ids expiring first are dropped to stay under it' }),
      cookieDomain: Type.Optional(Type.String({ minLength: 1, description: "The cookie's Domain attribute (e.g. `gavel.example.com`); host-only when absent" })),
      optOutCookie: Section({
        name: Type.String({ minLength: 1, default: 'uids-optout', description: 'A cookie the host sets for users who opted out: its presence stops id writes' }),
        value: Type.Optional(Type.String({ minLength: 1, description: 'Only this value of that cookie means opted out' })),
      }),
    }),
    compression: Section({
      response: Section({
        enableGzip: Type.Boolean({ default: false, description: "Gzip answers for clients that accept it (`Accept-Encoding: gzip`); Prebid Server's `compression.response.enable_gzip`" }),
        enableBrotli: Type.Boolean({ default: false, description: 'Brotli (quality 4) for clients that accept `br`, preferred over gzip when both are on' }),
        minBytes: Type.Integer({ minimum: 0, default: 1024, description: 'Answers smaller than this go uncompressed: below it compression costs more than it saves' }),
      }),
    }),
    privacy: Section({
      gdpr: Section({
        enabled: Type.Boolean({ default: true, description: "Enforce GDPR (TCF v2) where it applies; an account's `gdpr.enabled` / `gdpr.channel_enabled` overrides it" }),
        defaultValue: OneOf(['0', '1'] as const, {
          default: '0',
          description: "Whether GDPR applies to a request that does not say (`regs.gdpr` absent) and whose geo names no country: `'1'` yes, `'0'` no",
        }),
        eeaCountries: Type.Array(Type.String({ minLength: 1 }), {
          default: [...EEA_COUNTRIES],
          description: "ISO 3166 alpha-3 countries where GDPR applies to a request that does not say (`user.geo.country`, else `device.geo.country`); an account's `gdpr.eea_countries` replaces it",
        }),
        hostVendorId: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: "The host's GVL vendor id: purpose 1 for it lets `/setuid` write the `uids` cookie when GDPR applies" })),
        vendorLists: Type.Array(Type.String({ minLength: 1 }), {
          default: [],
          description: 'Global Vendor List files (IAB JSON, `vendor-list-v<N>.json`): the TC string names the version it was made with, and that one decides; a string naming a version not loaded gets no consent-based permission',
        }),
        vendorListUrl: Type.Optional(
          Type.String({
            minLength: 1,
            description:
              "Where to fetch a vendor list a TC string names and `vendorLists` lacks (`{{specVersion}}`, `{{version}}` replaced; IAB's is `https://vendor-list.consensu.org/v{{specVersion}}/archives/vendor-list-v{{version}}.json`): fetched in the background, kept; none by default",
          }),
        ),
        vendorListTimeoutMs: Type.Integer({ minimum: 1, default: 5000, description: 'Time limit of one vendor list fetch' }),
        nonStandardPublishers: Type.Array(Type.String({ minLength: 1 }), {
          default: [],
          description: "Publisher (account) ids whose auctions pass every bidder the ids and precise geo where GDPR applies, whatever the TCF string says (Prebid Server's `gdpr.non_standard_publishers`); user syncs are decided as for any publisher",
        }),
        bidderVendorIds: MapOf(Type.Integer({ minimum: 0, maximum: 65535 }), {
          default: {},
          description: "GVL vendor id per bidder, for bidders whose adapter declares none (or to replace it): `{<bidder>: <id>}`",
        }),
        tcf2: Section({
          ...Object.fromEntries(
            Array.from({ length: 10 }, (_, i) => [
              `purpose${i + 1}`,
              purposeSection(),
            ]),
          ) as Record<`purpose${1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10}`, ReturnType<typeof purposeSection>>,
          specialFeature1: Section({
            enforce: Type.Boolean({ default: true, description: 'Precise geo needs special feature 1 opted in and declared by the vendor' }),
            vendorExceptions: Type.Array(Type.String({ minLength: 1 }), { default: [], description: 'Bidders that receive precise geo whatever special feature 1 says' }),
          }),
          purposeOneTreatment: Section({
            enabled: Type.Boolean({ default: true, description: 'Read the TC string\'s purpose one treatment flag' }),
            accessAllowed: Type.Boolean({ default: true, description: 'Whether a string with that flag allows user syncs (purpose 1)' }),
          }),
        }, { description: "TCF v2 enforcement per purpose (`purpose1`...`purpose10`: `enforcePurpose`, `enforceVendors`, `enforceAlgo` full/basic, `vendorExceptions`), `specialFeature1`, `purposeOneTreatment`, as Prebid Server's `gdpr.tcf2`; an account's `gdpr.purposeN` overrides it" }),
      }),
      ccpa: Section({ enforce: Type.Boolean({ default: true, description: "Enforce a US privacy opt-out of sale (`regs.us_privacy`, GPP's `uspv1`): ids, IP and precise geo are removed; an account's `ccpa.enabled` overrides it" }) }),
      lmt: Section({ enforce: Type.Boolean({ default: true, description: 'Enforce `device.lmt: 1` (limit ad tracking): device ids, user ids and demographics removed, IP masked, geo rounded' }) }),
      coppa: Section({ enforce: Type.Boolean({ default: true, description: 'Enforce `regs.coppa: 1`: as LMT, and the geo cleared' }) }),
      gpp: Section({ enforce: Type.Boolean({ default: true, description: "Read `regs.gpp` / `regs.gpp_sid`: the TCF EU section as the consent string, US sections' opt-outs as a US privacy opt-out" }) }),
      ipv4: Section({ anonKeepBits: Type.Integer({ minimum: 0, maximum: 32, default: 24, description: 'Bits of an IPv4 address kept where a signal masks it' }) }),
      ipv6: Section({ anonKeepBits: Type.Integer({ minimum: 0, maximum: 128, default: 56, description: 'Bits of an IPv6 address kept where a signal masks it' }) }),
      allowActivities: Type.Optional(
        Type.Unsafe<Record<string, ActivityConfig>>({
          type: 'object',
          propertyNames: { enum: [...ACTIVITY_NAMES] },
          additionalProperties: ACTIVITY_SCHEMA,
          description:
            "Activity controls for every request (`syncUser`, `fetchBids`, `enrichUfpd`, `reportAnalytics`, `transmitUfpd`, `transmitPreciseGeo`, `transmitEids`, `transmitTids`): `{default, rules: [{allow, condition: {componentType, componentName, gppSid, geo}}]}`; an account's `privacy.allowactivities` activity replaces the host's; see [docs/privacy.md](docs/privacy.md)",
        }),
      ),
      trustProxyHeaders: Type.Boolean({
        default: false,
        description: "Take the client's IP from `X-Forwarded-For` / `X-Real-IP` (public addresses only) when the body has no `device.ip`: only behind a proxy that sets them",
      }),
    }),
    cors: Section({
      allowedOrigins: Type.Array(Type.String(), { default: [], description: 'Restrict the CORS origin echo to these origins; empty echoes any' }),
    }),
    admin: Section({
      enabled: Type.Boolean({ default: true, description: 'Serve `GET /metrics` (Prometheus) and `GET /health` on a private listener; when false nothing is recorded either' }),
      host: Type.String({ minLength: 1, default: '127.0.0.1', description: 'Address of that listener: loopback; widen it only behind a firewall' }),
      port: Port({ default: 8060, description: 'Its port: must differ from `server.port`; 0 picks a free port' }),
      requiredBackends: Type.Array(OneOf(['storedData', 'cache'] as const), {
        default: ['storedData'],
        uniqueItems: true,
        description: '`/health` is not ready while one of these is down: `storedData` (PostgreSQL or HTTP), `cache` (Redis)',
      }),
      inspector: Section({
        sampleRate: Type.Number({
          minimum: 0,
          maximum: 1,
          default: 0.01,
          description: 'Share of auctions the auction inspector (`GET /inspector` on the admin listener) records; replays are always recorded. Not with `server.workers` above 1',
        }),
        maxAuctions: Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Most auctions the inspector keeps in memory; the oldest go first' }),
      }),
    }),
  },
  closed,
);
