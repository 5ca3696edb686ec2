// Inversify reads decorator metadata through the Reflect polyfill; it must be in place before any container exists.
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Container, ContainerModule } from 'inversify';
import {
  ErrorCode,
  GavelError,
  HOOK_POINTS,
  HookPointTokens,
  type Capabilities,
  type Hook,
  type HookPoint,
  type HookPointServices,
  type ModuleDeps,
  type Stage,
} from '../api/index.js';
import { AccountService, type AccountLoader } from '../accounts/index.js';
import { AnalyticsService, type AnalyticsGate, type NamedReporter } from '../analytics/index.js';
import { handleAuction } from '../auction/auction-endpoint.js';
import { CategoryMappings } from '../auction/category-mappings.js';
import { implicitFields, type ImplicitFields } from '../auction/implicit-fields.js';
import { storedResponseReader, type StoredResponseReader } from '../stored-responses/index.js';
import { AuctionPipeline } from '../auction/pipeline.js';
import { privacyAnalyticsGate, PrivacyService, VendorListFetcher, VendorLists } from '../privacy/index.js';
import { buildBidderCatalog, hostVersion, type BidderCatalog } from '../bidders/catalog.js';
import { jsonResponse } from '../auction/endpoint-types.js';
import { bidderInfoHandlers } from '../bidders/info.js';
import { UndiciBidderTransport, type BidderTransport } from '../bidders/transport.js';
import { CacheClientLimits, cacheRoutes, createCacheServices, createCacheStore, type CacheServices, type CacheStore } from '../cache/index.js';
import { describeSchemaErrors, type GavelConfig } from '../config/index.js';
import { createCurrencyConverter, currencyRatesMount, type CurrencyConverter } from '../currency/index.js';
import type { EventConsumer } from '../events/index.js';
import { ExecutionPlanner, type AvailableHooks } from '../hooks/plan.js';
import { closeServer, createHttpApp, fastRoutes, type HttpEdge } from '../http/app.js';
import { AuctionWatchers, createInspectorStore, inspectorMount } from '../inspector/index.js';
import { buildOpenApiDocument, openApiMount } from '../openapi/index.js';
import { createModuleMetrics, instrumentCachePut, NoopMetrics, PrometheusMetrics, Readiness, type AdminMount, type Metrics } from '../metrics/index.js';
import { discoverPlugins, type LoadedModule, type PluginCatalog } from '../plugins/discover.js';
import { schemaFailureText } from '../plugins/schema-errors.js';
import { createStoredDataFetcher, type StoredDataService } from '../stored/index.js';
import { randomBidId, type BidCheckSettings } from '../bids/index.js';
import { reviewConfig, type ConfigWarning } from './config-review.js';
import { endpointContributions, type EndpointServices } from './endpoints.js';
import { createAccessLogger, createLogger, type Logger } from './logger.js';
import { reloadConfig, type Reloadable, type ReloadOutcome } from './reload.js';
import { systemClock, Tokens, type Clock } from './tokens.js';

export interface GavelApp {
  container: Container;
  config: GavelConfig;
  http: HttpEdge;
  logger: Logger;
  plugins: PluginCatalog;
  bidders: BidderCatalog;
  /** What the admin server exposes (NoopMetrics when `admin.enabled` is false). */
  metrics: Metrics;
  /** Settings that boot but are likely mistakes; each was logged at warn. */
  configWarnings: ConfigWarning[];
  /** Pages the admin listener serves besides /metrics and /health: the auction inspector, the OpenAPI document. */
  adminMounts: AdminMount[];
  /** Stored data, with its invalidation (the admin endpoint, a reload). */
  stored: StoredDataService;
  /** Whether this instance should receive traffic: `GET /health`. */
  readiness: Readiness;
  listen(port?: number, host?: string): Promise<Server>;
  /** Applies a new (validated) configuration: what can change live changes; the rest is returned as needing a restart. */
  reload(next: GavelConfig): ReloadOutcome;
  close(): Promise<void>;
}

export interface ComposeOptions {
  /** Where to scan for built-in plugins (default: the compiled tree). */
  pluginRoot?: string;
}

export interface BootOptions extends ComposeOptions {
  /**
   * Runs on the composed container before anything is resolved: the place to replace a service by rebinding its
   * token (`container.rebind(Tokens.BidderTransport).toConstantValue(transport)`), as tests and fixture runners do.
   */
  configure?(container: Container): void | Promise<void>;
}

/** Built-in modules run unless switched off; third-party modules run only when switched on. */
function enabledModules(config: GavelConfig, plugins: PluginCatalog): LoadedModule[] {
  for (const code of Object.keys(config.modules)) {
    if (!plugins.modules.has(code)) {
      throw new GavelError(ErrorCode.ConfigInvalid, `modules.${code}: no module "${code}" is installed (installed: ${[...plugins.modules.keys()].join(', ')})`);
    }
  }
  return [...plugins.modules.values()].filter((module) => isModuleEnabled(config, module));
}

export function isModuleEnabled(config: GavelConfig, module: LoadedModule): boolean {
  const enabled = config.modules[module.manifest.code]?.enabled;
  return module.builtIn || module.manifest.enabledByDefault === true ? enabled !== false : enabled === true;
}

/**
 * Which enabled module provides each hook point: a third-party provider replaces the built-in; two third-party
 * providers of one point, or a point nobody provides (a built-in switched off with no replacement), stop boot.
 */
export function chooseProviders(modules: LoadedModule[]): Map<HookPoint, LoadedModule> {
  const chosen = new Map<HookPoint, LoadedModule>();
  for (const point of HOOK_POINTS) {
    const providers = modules.filter((module) => module.manifest.provides?.[point] !== undefined);
    const replacements = providers.filter((module) => !module.builtIn);
    if (replacements.length > 1) {
      throw new GavelError(
        ErrorCode.HookPointConflict,
        `hook point ${point} is provided by both ${replacements[0]!.manifest.code} and ${replacements[1]!.manifest.code}: enable only one of them`,
      );
    }
    const provider = replacements[0] ?? providers[0];
    if (!provider) {
      throw new GavelError(
        ErrorCode.HookPointMissing,
        `hook point ${point} has no implementation: its built-in module was switched off and no enabled module provides it`,
      );
    }
    chosen.set(point, provider);
  }
  return chosen;
}

function moduleConfigOf(config: GavelConfig, module: LoadedModule): Record<string, unknown> {
  const code = module.manifest.code;
  const moduleConfig = config.modules[code]?.config ?? {};
  if (module.validateConfig && !module.validateConfig(moduleConfig)) {
    const problems = describeSchemaErrors(module.validateConfig.errors, `modules.${code}.config`);
    throw new GavelError(ErrorCode.ConfigInvalid, `module ${code}: invalid configuration: ${problems.join('; ')}`, { problems });
  }
  return moduleConfig;
}

/** An enabled module's container module: the hook points it won, and its stage hooks. */
function pluginContainerModule(module: LoadedModule, moduleConfig: Record<string, unknown>, points: HookPoint[]): ContainerModule {
  const { manifest } = module;
  return new ContainerModule(({ bind }) => {
    for (const point of points) {
      const make = manifest.provides![point]! as (config: Record<string, unknown>, deps: ModuleDeps) => HookPointServices[HookPoint];
      bind(HookPointTokens[point]).toResolvedValue((deps: ModuleDeps) => make(moduleConfig, deps), [Tokens.ModuleDeps]).inSingletonScope();
    }
    const analytics = manifest.analytics;
    if (analytics) {
      bind<NamedReporter>(Tokens.AnalyticsReporters)
        .toResolvedValue((deps: ModuleDeps) => ({ code: manifest.code, reporter: analytics(moduleConfig, deps) }), [Tokens.ModuleDeps])
        .inSingletonScope();
    }
    const create = manifest.create;
    if (create) {
      bind(Tokens.ModuleHooks)
        .toResolvedValue((deps: ModuleDeps) => {
          const hooks = create(moduleConfig, deps);
          for (const stage of Object.keys(hooks) as Stage[]) {
            if (!manifest.stages?.includes(stage)) {
              throw new GavelError(ErrorCode.PluginInvalid, `module ${manifest.code} returned hooks for stage "${stage}", which its manifest does not declare`, { plugin: manifest.code });
            }
          }
          return { code: manifest.code, hooks: hooks as Partial<Record<Stage, Record<string, Hook>>> };
        }, [Tokens.ModuleDeps])
        .inSingletonScope();
    }
  });
}

function storedData(config: GavelConfig, logger: Logger): StoredDataService {
  const stored = config.storedRequests;
  const cache = stored.cacheTtlSeconds > 0 ? { ttlMs: stored.cacheTtlSeconds * 1000, maxEntries: stored.cacheMaxEntries, missTtlMs: stored.missCacheMs } : undefined;
  const log = logger.child({ component: 'stored' });
  const pg = stored.postgres;
  if (pg?.url) {
    const queries = {
      ...(pg.requestsQuery && { requests: pg.requestsQuery }),
      ...(pg.impsQuery && { imps: pg.impsQuery }),
      ...(pg.accountsQuery && { account: pg.accountsQuery }),
      ...(pg.responsesQuery && { responses: pg.responsesQuery }),
    };
    return createStoredDataFetcher(
      {
        backend: 'postgres',
        connectionString: pg.url,
        table: pg.table,
        queries,
        pool: { poolSize: pg.poolSize, connectTimeoutMs: pg.connectTimeoutMs, statementTimeoutMs: pg.statementTimeoutMs, idleTimeoutMs: pg.idleTimeoutMs },
        changes: { listen: pg.listen, pollIntervalMs: pg.pollIntervalMs, changesQuery: pg.changesQuery },
        healthCheckIntervalMs: pg.healthCheckIntervalMs,
        cache,
      },
      log,
    );
  }
  const http = stored.http;
  if (http?.url) {
    const events = http.eventsUrl ? { url: http.eventsUrl, intervalMs: http.eventsIntervalMs ?? 1000 } : undefined;
    return createStoredDataFetcher({ backend: 'http', url: http.url, timeoutMs: http.timeoutMs, events, cache }, log);
  }
  return createStoredDataFetcher({ backend: 'filesystem', dir: stored.filesystem?.dir ?? 'stored', watch: stored.filesystem?.watch, cache }, log);
}

function publicCacheUrl(config: GavelConfig): string | undefined {
  return config.cache.publicUrl ?? (config.cache.url ? undefined : `${config.server.externalUrl.replace(/\/$/, '')}/cache`);
}

/** The core's own services, each built on first use from the ones it needs. */
function coreContainerModule(config: GavelConfig, plugins: PluginCatalog): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(Tokens.Config).toConstantValue(config);
    bind(Tokens.PluginCatalog).toConstantValue(plugins);
    bind(Tokens.Clock).toConstantValue(systemClock);
    bind<Logger>(Tokens.Logger).toResolvedValue(() => createLogger(config)).inSingletonScope();
    bind<BidderCatalog>(Tokens.BidderCatalog)
      .toResolvedValue((catalog: PluginCatalog, logger: Logger) => buildBidderCatalog(config, catalog, logger), [Tokens.PluginCatalog, Tokens.Logger])
      .inSingletonScope();
    bind<Metrics>(Tokens.Metrics)
      .toResolvedValue(
        (bidders: BidderCatalog) =>
          config.admin.enabled ? new PrometheusMetrics({ bidders: bidders.entries.keys(), modules: plugins.modules.keys() }) : new NoopMetrics(),
        [Tokens.BidderCatalog],
      )
      .inSingletonScope();
    bind<BidderTransport>(Tokens.BidderTransport)
      .toResolvedValue(
        (metrics: Metrics) =>
          new UndiciBidderTransport(config.httpClient, config.httpClient.maxResponseBytes, (reason) => metrics.shed(reason === 'queue-full' ? 'bidder-queue-full' : 'bidder-deadline')),
        [Tokens.Metrics],
      )
      .inSingletonScope();
    bind<StoredDataService>(Tokens.StoredData).toResolvedValue((logger: Logger) => storedData(config, logger), [Tokens.Logger]).inSingletonScope();
    bind<AccountLoader>(Tokens.Accounts)
      .toResolvedValue((stored: StoredDataService, logger: Logger) => new AccountService(stored.fetcher, config.accounts, logger), [Tokens.StoredData, Tokens.Logger])
      .inSingletonScope();
    bind<StoredResponseReader>(Tokens.StoredResponses)
      .toResolvedValue(
        (stored: StoredDataService, bidders: BidderCatalog) => storedResponseReader(stored.fetcher, (name) => bidders.get(name) !== undefined),
        [Tokens.StoredData, Tokens.BidderCatalog],
      )
      .inSingletonScope();
    bind<ImplicitFields>(Tokens.ImplicitFields).toConstantValue(implicitFields({ trustProxyHeaders: config.privacy.trustProxyHeaders, generateTids: config.auction.autoGenSourceTid, generateRequestId: config.auction.generateRequestId }));
    bind<CacheStore | null>(Tokens.CacheStore)
      .toResolvedValue((logger: Logger) => (config.cache.url ? null : createCacheStore(config.cache, logger)), [Tokens.Logger])
      .inSingletonScope();
    bind<CacheServices>(Tokens.Cache)
      .toResolvedValue(
        (store: CacheStore | null, logger: Logger) => createCacheServices({ ...config.cache, publicUrl: publicCacheUrl(config) }, store ?? undefined, logger),
        [Tokens.CacheStore, Tokens.Logger],
      )
      .inSingletonScope();
    bind<CurrencyConverter>(Tokens.Currency)
      .toResolvedValue((logger: Logger, clock: Clock) => createCurrencyConverter(config.currency, { logger, clock }), [Tokens.Logger, Tokens.Clock])
      .inSingletonScope();
    // Read and checked at boot: a missing or malformed file stops the server, naming its `video.categoryMappings` key.
    bind<CategoryMappings>(Tokens.CategoryMappings).toResolvedValue(() => CategoryMappings.load(config.video.categoryMappings)).inSingletonScope();
    bind<AnalyticsGate>(Tokens.AnalyticsGate).toConstantValue(privacyAnalyticsGate(config.privacy.gdpr.hostVendorId));
    bind<AnalyticsService>(Tokens.Analytics)
      .toDynamicValue((context) => {
        const reporters = context.getAll<NamedReporter>(Tokens.AnalyticsReporters, { optional: true });
        return new AnalyticsService(reporters, context.get<AnalyticsGate>(Tokens.AnalyticsGate), context.get<Logger>(Tokens.Logger).child({ component: 'analytics' }));
      })
      .inSingletonScope();
    // `GET /event` hands accepted events to analytics (a no-op when no analytics module is enabled).
    bind<EventConsumer>(Tokens.EventConsumer).toResolvedValue((analytics: AnalyticsService) => (analytics.enabled ? analytics.eventConsumer() : () => undefined), [Tokens.Analytics]);
    // The vendor lists are read at boot: a missing or malformed file stops the server, naming it.
    bind<PrivacyService>(Tokens.Privacy)
      .toResolvedValue((logger: Logger) => new PrivacyService(config.privacy, vendorLists(config.privacy.gdpr, logger)), [Tokens.Logger])
      .inSingletonScope();
    bind<BidCheckSettings>(Tokens.BidChecks)
      .toResolvedValue((bidders: BidderCatalog) => bidCheckSettings(config, bidders), [Tokens.BidderCatalog])
      .inSingletonScope();
    bind<ModuleDeps>(Tokens.ModuleDeps)
      .toResolvedValue(
        (bidders: BidderCatalog, cache: CacheServices, logger: Logger, metrics: Metrics, categories: CategoryMappings) => moduleDeps(bidders, cache, logger, metrics, categories),
        [Tokens.BidderCatalog, Tokens.Cache, Tokens.Logger, Tokens.Metrics, Tokens.CategoryMappings],
      )
      .inSingletonScope();
    bind<ExecutionPlanner>(Tokens.ExecutionPlanner)
      .toDynamicValue((context) => {
        const hooks = context.getAll<{ code: string; hooks: Partial<Record<Stage, Record<string, Hook>>> }>(Tokens.ModuleHooks, { optional: true });
        const available: AvailableHooks = new Map(hooks.map((entry) => [entry.code, entry.hooks] as const));
        return new ExecutionPlanner(available, config.hooks, context.get<Logger>(Tokens.Logger));
      })
      .inSingletonScope();
    bind<AuctionPipeline>(Tokens.AuctionPipeline)
      .toDynamicValue(
        (context) =>
          new AuctionPipeline({
            config,
            bidders: context.get(Tokens.BidderCatalog),
            transport: context.get(Tokens.BidderTransport),
            metrics: context.get(Tokens.Metrics),
            currency: context.get(Tokens.Currency),
            services: hookPointServices((point) => context.get(HookPointTokens[point])),
            bidChecks: context.get(Tokens.BidChecks),
            privacy: context.get(Tokens.Privacy),
          }),
      )
      .inSingletonScope();
  });
}

/** The host's vendor lists, and the fetcher of the ones it lacks when it names a vendor list URL. */
function vendorLists(gdpr: GavelConfig['privacy']['gdpr'], logger: Logger): VendorLists {
  const lists = VendorLists.fromFiles(gdpr.vendorLists);
  if (gdpr.vendorListUrl) {
    const fetcher = new VendorListFetcher(lists, { urlTemplate: gdpr.vendorListUrl, timeoutMs: gdpr.vendorListTimeoutMs }, logger);
    lists.onMissing = (specVersion, version) => void fetcher.request(specVersion, version);
  }
  return lists;
}

function hookPointServices(get: (point: HookPoint) => unknown): HookPointServices {
  return Object.fromEntries(HOOK_POINTS.map((point) => [point, get(point)])) as unknown as HookPointServices;
}

/** The host's side of the checks every bidder's bids go through. */
export function bidCheckSettings(config: GavelConfig, bidders: BidderCatalog): BidCheckSettings {
  return {
    validateBids: true,
    validations: config.auction.bidValidations,
    newBidId: config.auction.generateBidId ? randomBidId : undefined,
    externalUrl: config.server.externalUrl,
    vastModifiable: (adapter) => bidders.get(adapter)?.info.modifyingVastXmlAllowed === true,
  };
}

function moduleDeps(bidders: BidderCatalog, cache: CacheServices, logger: Logger, metrics: Metrics, categories: CategoryMappings): ModuleDeps {
  const view = new Map<string, { adapter: string; capabilities: Capabilities; enabled: boolean; multiformat?: boolean }>();
  for (const [name, entry] of bidders.entries) {
    view.set(name, { adapter: entry.adapter, capabilities: entry.info.capabilities, enabled: entry.enabled, multiformat: entry.info.openrtb?.multiformat });
  }
  return {
    logger,
    metrics: createModuleMetrics(metrics),
    bidders: view,
    validateBidderParams(bidder, params) {
      const validate = bidders.get(bidder)?.validateParams;
      if (!validate || validate(params)) return undefined;
      // Prebid Server's words (gojsonschema's) where the walk finds them; ajv's for a keyword the walk does not know.
      return schemaFailureText(validate.schema as object, params)
        || (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`).join('; ');
    },
    cachePut: instrumentCachePut((values, deadline, report) => cache.client.put(values, deadline, report), metrics),
    cachePublicUrl: cache.publicUrl ? { host: cache.publicUrl.host, path: cache.publicUrl.path, scheme: cache.publicUrl.scheme } : undefined,
    categoryMapping: (adServer, publisher) => categories.mappingFor(adServer, publisher),
  };
}

/**
 * The composition root: discovers the plugins, then binds the core's services (one container module) and each
 * enabled plugin's contributions (one container module per plugin: the hook points it provides, its stage hooks).
 * Nothing is resolved yet; a plugin or plan error that needs resolution surfaces in `startGavel`.
 */
export async function composeGavel(config: GavelConfig, options: ComposeOptions = {}): Promise<Container> {
  const plugins = await discoverPlugins({ root: options.pluginRoot, packages: config.plugins });
  const modules = enabledModules(config, plugins);
  const providers = chooseProviders(modules);
  const container = new Container();
  container.load(coreContainerModule(config, plugins));
  for (const module of modules) {
    const points = HOOK_POINTS.filter((point) => providers.get(point) === module);
    container.load(pluginContainerModule(module, moduleConfigOf(config, module), points));
  }
  return container;
}

/** Resolves the app from a composed container: every service is built here, once; nothing is resolved per request. */
export async function startGavel(container: Container): Promise<GavelApp> {
  const config = container.get<GavelConfig>(Tokens.Config);
  const logger = container.get<Logger>(Tokens.Logger);
  const plugins = container.get<PluginCatalog>(Tokens.PluginCatalog);
  const bidders = container.get<BidderCatalog>(Tokens.BidderCatalog);
  const configWarnings = reviewConfig(config, plugins, bidders);
  for (const warning of configWarnings) logger.warn({ key: warning.key }, warning.message);
  const metrics = container.get<Metrics>(Tokens.Metrics);
  const transport = container.get<BidderTransport>(Tokens.BidderTransport);
  const cache = container.get<CacheServices>(Tokens.Cache);
  const stored = container.get<StoredDataService>(Tokens.StoredData);
  const currency = await container.getAsync<CurrencyConverter>(Tokens.Currency);
  const planner = container.get<ExecutionPlanner>(Tokens.ExecutionPlanner);
  const pipeline = await container.getAsync<AuctionPipeline>(Tokens.AuctionPipeline);

  const analytics = container.get<AnalyticsService>(Tokens.Analytics);
  const inspector = createInspectorStore(config);
  const services: EndpointServices = {
    pipeline,
    planner,
    stored: stored.fetcher,
    accounts: container.get<AccountLoader>(Tokens.Accounts),
    storedResponses: container.get<StoredResponseReader>(Tokens.StoredResponses),
    implicitFields: container.get<ImplicitFields>(Tokens.ImplicitFields),
    blockedApps: new Set(config.auction.blockedApps),
    config,
    logger,
    clock: container.get<Clock>(Tokens.Clock),
    cache,
    bidders,
    targeting: container.get(HookPointTokens.targeting),
    bidCache: container.get(HookPointTokens['bid-caching']),
    categories: container.get<CategoryMappings>(Tokens.CategoryMappings),
    onEvent: container.get<EventConsumer>(Tokens.EventConsumer),
    privacy: container.get<PrivacyService>(Tokens.Privacy),
    watchers: new AuctionWatchers(logger, inspector, config.auction),
  };
  const contributions = endpointContributions(services);
  // The public routing table: every endpoint, its method and its lane.
  const routes = analytics.observe([
    ...fastRoutes('POST', {
      '/openrtb2/auction': (request) => handleAuction(request, services),
      ...contributions.jsonPost,
    }),
    ...fastRoutes('GET', {
      '/status': async () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: { status: 'ok' } }),
      // Prebid Server's: the version as its build names it, and no revision for a build that has none.
      '/version': async () => jsonResponse(200, { revision: 'not-set', version: hostVersion() }),
      ...bidderInfoHandlers(bidders),
      ...contributions.get,
    }),
    ...(cache.store
      ? cacheRoutes(cache.store, cache.limits, { logger, clientLimits: new CacheClientLimits(config.cache.clientLimits), onRefused: () => metrics.shed('cache-rate-limit') })
      : []),
  ]);
  const accessLog = { logger: createAccessLogger(logger), settings: { ...config.logging.accessLog } };
  const http = createHttpApp({
    maxRequestBytes: config.server.maxRequestBytes,
    maxJsonDepth: config.server.maxJsonDepth,
    shedding: config.server.shedding,
    timeouts: { headersMs: config.server.headersTimeoutMs, requestMs: Math.max(config.server.requestTimeoutMs, config.server.headersTimeoutMs) },
    allowedOrigins: config.cors.allowedOrigins,
    logger,
    metrics,
    routes,
    accessLog,
    compression: config.compression.response,
  });

  const readiness = new Readiness(config.admin.requiredBackends);
  for (const status of [stored.status, cache.status]) {
    if (!status) continue;
    readiness.track(status);
    metrics.watchBackend(status);
  }
  const reloadable: Reloadable = { config, logger, accessLog, readiness, invalidateStored: () => stored.invalidate?.() };

  const adminMounts: AdminMount[] = [];
  if (inspector) adminMounts.push(inspectorMount(inspector, (input) => handleAuction(input, services)));
  adminMounts.push(currencyRatesMount(currency));
  adminMounts.push(openApiMount(buildOpenApiDocument({ routes, bidders, version: hostVersion(), externalUrl: config.server.externalUrl })));

  let server: Server | undefined;
  return {
    container,
    config,
    http,
    logger,
    plugins,
    bidders,
    metrics,
    configWarnings,
    adminMounts,
    stored,
    readiness,
    reload: (next) => reloadConfig(reloadable, next),
    async listen(port = config.server.port, host = config.server.host) {
      server = http.listen(port, host);
      await new Promise<void>((resolve, reject) => {
        server!.once('listening', resolve);
        server!.once('error', reject);
      });
      server.keepAliveTimeout = 65_000;
      const address = server.address() as AddressInfo;
      logger.info({ port: address.port, host }, 'gavel listening');
      readiness.listening = true;
      return server;
    },
    async close() {
      // A hard drain: whatever is still open at drainTimeoutMs is dropped, bidder pools included.
      const drainEnds = Date.now() + config.server.drainTimeoutMs;
      readiness.draining = true;
      http.drain();
      if (server) await closeServer(server, config.server.drainTimeoutMs);
      currency.close();
      // After the drain: the last transactions are reported, then each module flushes what it holds, all within
      // the drain time (the process exits 250 ms after it whatever is still open).
      const left = Math.max(0, drainEnds - Date.now());
      await Promise.allSettled([analytics.close(left), transport.close(left), cache.close(), stored.close()]);
    },
  };
}

/** Composes the container, lets the caller rebind what it replaces, and starts the app. */
export async function bootGavel(config: GavelConfig, options: BootOptions = {}): Promise<GavelApp> {
  const container = await composeGavel(config, options);
  await options.configure?.(container);
  return startGavel(container);
}
