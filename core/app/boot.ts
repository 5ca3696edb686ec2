import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Container } from 'inversify';
import { ErrorCode, GavelError, type Hook, type ModuleDeps, type Stage } from '../api/index.js';
import { handleAuction } from '../auction/auction-endpoint.js';
import { AuctionPipeline } from '../auction/pipeline.js';
import { buildBidderCatalog, type BidderCatalog } from '../bidders/catalog.js';
import { bidderInfoHandlers } from '../bidders/info.js';
import { UndiciBidderTransport, type BidderTransport } from '../bidders/transport.js';
import { createCacheServices, EmbeddedCacheClient, registerCacheRoutes, type CacheServices, type CacheStore } from '../cache/index.js';
import type { GavelConfig } from '../config/index.js';
import { createCurrencyConverter, type CurrencyService } from '../currency/index.js';
import { buildExecutionPlans, type AvailableHooks, type ExecutionPlans } from '../hooks/plan.js';
import { closeServer, createHttpApp, type EndpointHandler, type HttpEdge } from '../http/app.js';
import { instrumentCachePut, NoopMetrics, PrometheusMetrics, type Metrics } from '../metrics/index.js';
import { discoverPlugins, type PluginCatalog } from '../plugins/discover.js';
import { createStoredDataFetcher, type StoredDataFetcher } from '../stored/index.js';
import { endpointContributions } from './endpoints.js';
import { createLogger, type Logger } from './logger.js';
import { systemClock, Tokens, type Clock } from './tokens.js';

/** Replacements for the core's services, for tests and the fixture runners: the one place bindings are overridden. */
export interface BootOverrides {
  transport?: BidderTransport;
  cacheStore?: CacheStore;
  stored?: StoredDataFetcher;
  logger?: Logger;
  clock?: Clock;
  metrics?: Metrics;
  /** Where to scan for built-in plugins (default: the compiled tree). */
  pluginRoot?: string;
  /** Change the discovered plugins before bidders are built (the endpoint fixture runner swaps adapters). */
  adjustPlugins?: (plugins: PluginCatalog) => void;
}

export interface GavelApp {
  container: Container;
  config: GavelConfig;
  http: HttpEdge;
  logger: Logger;
  plugins: PluginCatalog;
  bidders: BidderCatalog;
  /** What the admin server exposes (NoopMetrics when `admin.enabled` is false). */
  metrics: Metrics;
  listen(port?: number, host?: string): Promise<Server>;
  close(): Promise<void>;
}

/** Built-in modules run unless switched off; third-party modules run only when switched on. */
function enabledModules(config: GavelConfig, plugins: PluginCatalog) {
  for (const code of Object.keys(config.modules)) {
    if (!plugins.modules.has(code)) {
      throw new GavelError(ErrorCode.ConfigInvalid, `modules.${code}: no module "${code}" is installed (installed: ${[...plugins.modules.keys()].join(', ')})`);
    }
  }
  return [...plugins.modules.values()].filter((module) => {
    const enabled = config.modules[module.manifest.code]?.enabled;
    return module.builtIn ? enabled !== false : enabled === true;
  });
}

function moduleDeps(bidders: BidderCatalog, cache: CacheServices, logger: Logger, metrics: Metrics): ModuleDeps {
  const view = new Map<string, { adapter: string; capabilities: import('../api/index.js').Capabilities; enabled: boolean }>();
  for (const [name, entry] of bidders.entries) view.set(name, { adapter: entry.adapter, capabilities: entry.info.capabilities, enabled: entry.enabled });
  return {
    logger,
    bidders: view,
    validateBidderParams(bidder, params) {
      const validate = bidders.get(bidder)?.validateParams;
      if (!validate || validate(params)) return undefined;
      return (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`).join('; ');
    },
    cachePut: instrumentCachePut((values, deadline) => cache.client.put(values, deadline), metrics),
    cachePublicUrl: cache.publicUrl ? { host: cache.publicUrl.host, path: cache.publicUrl.path, scheme: cache.publicUrl.scheme } : undefined,
  };
}

function instantiateModules(config: GavelConfig, plugins: PluginCatalog, deps: ModuleDeps): AvailableHooks {
  const available: AvailableHooks = new Map();
  for (const module of enabledModules(config, plugins)) {
    const code = module.manifest.code;
    const moduleConfig = config.modules[code]?.config ?? {};
    if (module.validateConfig && !module.validateConfig(moduleConfig)) {
      const problems = (module.validateConfig.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ');
      throw new GavelError(ErrorCode.ConfigInvalid, `modules.${code}.config is invalid: ${problems}`);
    }
    const hooks = module.manifest.create(moduleConfig, { ...deps, logger: deps.logger });
    for (const stage of Object.keys(hooks) as Stage[]) {
      if (!module.manifest.stages.includes(stage)) {
        throw new GavelError(ErrorCode.PluginInvalid, `module ${code} returned hooks for stage "${stage}", which its manifest does not declare`, { plugin: code });
      }
    }
    available.set(code, { builtIn: module.builtIn, hooks: hooks as Partial<Record<Stage, Record<string, Hook>>> });
  }
  return available;
}

function storedFetcher(config: GavelConfig, logger: Logger) {
  const stored = config.storedRequests;
  const cache = stored.cacheTtlSeconds > 0 ? { ttlMs: stored.cacheTtlSeconds * 1000, maxEntries: stored.cacheMaxEntries } : undefined;
  if (stored.postgres?.url) {
    const { requestsQuery, impsQuery, accountsQuery } = stored.postgres;
    const queries = { ...(requestsQuery && { requests: requestsQuery }), ...(impsQuery && { imps: impsQuery }), ...(accountsQuery && { account: accountsQuery }) };
    return createStoredDataFetcher({ backend: 'postgres', connectionString: stored.postgres.url, queries, cache }, logger);
  }
  if (stored.http?.url) return createStoredDataFetcher({ backend: 'http', url: stored.http.url, cache }, logger);
  return createStoredDataFetcher({ backend: 'filesystem', dir: stored.filesystem?.dir ?? 'stored', cache }, logger);
}

/**
 * The composition root: config -> plugins -> bidders -> modules and plans -> services -> HTTP. Everything is
 * resolved here, once; nothing is looked up in the container per request.
 */
export async function bootGavel(config: GavelConfig, overrides: BootOverrides = {}): Promise<GavelApp> {
  const container = new Container();
  const logger = overrides.logger ?? createLogger(config);
  const plugins = await discoverPlugins({ root: overrides.pluginRoot, packages: config.plugins });
  overrides.adjustPlugins?.(plugins);
  const bidders = buildBidderCatalog(config, plugins, logger);
  const metrics =
    overrides.metrics ??
    (config.admin.enabled ? new PrometheusMetrics({ bidders: bidders.entries.keys(), modules: plugins.modules.keys() }) : new NoopMetrics());

  const publicUrl = config.cache.publicUrl ?? (config.cache.url ? undefined : `${config.server.externalUrl.replace(/\/$/, '')}/cache`);
  const cache = createCacheServices({ ...config.cache, publicUrl }, logger);
  if (overrides.cacheStore) {
    cache.store = overrides.cacheStore;
    cache.client = new EmbeddedCacheClient(overrides.cacheStore, cache.limits, { logger });
  }
  const storedService = overrides.stored ? { fetcher: overrides.stored, close: async () => {} } : storedFetcher(config, logger);
  const plans = buildExecutionPlans(config, instantiateModules(config, plugins, moduleDeps(bidders, cache, logger, metrics)));
  const transport = overrides.transport ?? new UndiciBidderTransport(config.httpClient, config.httpClient.maxResponseBytes);
  const clock = overrides.clock ?? systemClock;
  const currency = await createCurrencyConverter(config.currency, { logger, clock });

  container.bind(Tokens.Config).toConstantValue(config);
  container.bind(Tokens.Logger).toConstantValue(logger);
  container.bind(Tokens.PluginCatalog).toConstantValue(plugins);
  container.bind(Tokens.BidderCatalog).toConstantValue(bidders);
  container.bind(Tokens.ExecutionPlans).toConstantValue(plans);
  container.bind(Tokens.BidderTransport).toConstantValue(transport);
  container.bind(Tokens.StoredDataFetcher).toConstantValue(storedService.fetcher);
  container.bind(Tokens.CacheClient).toConstantValue(cache.client);
  container.bind(Tokens.Clock).toConstantValue(clock);
  container.bind(Tokens.Metrics).toConstantValue(metrics);
  container.bind(Tokens.Currency).toConstantValue(currency);
  container
    .bind(Tokens.AuctionService)
    .toResolvedValue(
      (cfg: GavelConfig, catalog: BidderCatalog, executionPlans: ExecutionPlans, bidderTransport: BidderTransport, log: Logger, time: Clock, recorder: Metrics, rates: CurrencyService) =>
        new AuctionPipeline({ config: cfg, bidders: catalog, plans: executionPlans, transport: bidderTransport, logger: log, clock: time, metrics: recorder, currency: rates }),
      [Tokens.Config, Tokens.BidderCatalog, Tokens.ExecutionPlans, Tokens.BidderTransport, Tokens.Logger, Tokens.Clock, Tokens.Metrics, Tokens.Currency],
    )
    .inSingletonScope();

  const pipeline = container.get<AuctionPipeline>(Tokens.AuctionService);
  const endpointServices = { pipeline, stored: storedService.fetcher, config, cache, bidders, logger };
  const contributions = endpointContributions(endpointServices);
  const jsonPost: Record<string, EndpointHandler> = {
    '/openrtb2/auction': (request) => handleAuction(request, endpointServices),
    ...contributions.jsonPost,
  };
  const get: Record<string, EndpointHandler> = {
    '/status': async () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: { status: 'ok' } }),
    ...bidderInfoHandlers(bidders),
    ...contributions.get,
  };
  // The cache routes are registered by `extend` below; they are the only ones not in these two maps.
  metrics.declareRoutes([...Object.keys(jsonPost), ...Object.keys(get), '/cache']);
  const http = createHttpApp({
    maxRequestBytes: config.server.maxRequestBytes,
    allowedOrigins: config.cors.allowedOrigins,
    logger,
    metrics,
    jsonPost,
    get,
    extend: (router) => {
      if (cache.store) registerCacheRoutes(router, cache.store, cache.limits, { logger });
    },
  });

  let server: Server | undefined;
  return {
    container,
    config,
    http,
    logger,
    plugins,
    bidders,
    metrics,
    async listen(port = config.server.port, host = config.server.host) {
      server = http.listen(port, host);
      await new Promise<void>((resolve, reject) => {
        server!.once('listening', resolve);
        server!.once('error', reject);
      });
      server.keepAliveTimeout = 65_000;
      const address = server.address() as AddressInfo;
      logger.info({ port: address.port, host }, 'gavel listening');
      return server;
    },
    async close() {
      if (server) await closeServer(server, config.server.drainTimeoutMs);
      currency.close();
      await Promise.allSettled([transport.close(), cache.close(), storedService.close()]);
    },
  };
}
