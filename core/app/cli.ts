#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=20 --max-inlined-bytecode-size-cumulative=1840
import cluster, { type Worker } from 'node:cluster';
import { resolve } from 'node:path';
import { GavelError } from '../api/index.js';
import { loadConfig, type GavelConfig } from '../config/index.js';
import { applyRuntimeFlags, workerExecArgv } from './node-flags.js';
import type { InvalidationOrder, ReadinessReport } from '../metrics/index.js';
import type { GavelApp } from './boot.js';

const USAGE = `usage: gavel <command> [options]        (npx gavel ... from a folder where gavel-auction is installed)
  serve [--config FILE]            run the server (config also from GAVEL_CONFIG and GAVEL_* variables)
  plugins [--config FILE]          list the discovered adapters and modules, and the bidders the config declares
  validate-config FILE             check a config file and exit 0 (valid; warnings on stderr) or 1 (names what is wrong)
  db migrate [--config FILE]       create or upgrade the PostgreSQL schema of stored data (storedRequests.postgres)
  db check [--config FILE]         exit 0 when that schema is current, 1 naming what is missing`;

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

function fail(err: unknown): never {
  if (err instanceof GavelError) console.error(`gavel: ${err.code}: ${err.message}`);
  else console.error(`gavel: ${(err as Error)?.stack ?? String(err)}`);
  process.exit(1);
}

/** Messages between the cluster primary and its workers (besides the metrics, see core/metrics/cluster.ts). */
type WorkerState = { gavel: 'state' } & ReadinessReport & { listening: boolean };
type PrimaryOrder = { gavel: 'invalidate'; order: InvalidationOrder } | { gavel: 'reload' };

/** A worker that lived this long before exiting was healthy: it is replaced at once, and its slot's backoff starts over. */
const STABLE_AFTER_MS = 10_000;
const RESTART_MIN_MS = 100;
const RESTART_MAX_MS = 30_000;
/** Past `server.drainTimeoutMs`, how long the primary waits for its workers (each exits by its drain plus 250 ms). */
const PRIMARY_EXIT_MARGIN_MS = 2_000;

/**
 * The workers whose processes are still running. Not `cluster.workers` alone: node takes a worker out of it only once
 * its process has both exited and closed its IPC channel, and the two events come in either order, so on a worker's
 * `exit` it may still be listed.
 */
function runningWorkers(): Worker[] {
  return Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined && !worker.isDead());
}

/**
 * Reads the config file again, validated first: an invalid file changes nothing and is logged; a valid one is
 * applied as far as it can be live, and the rest is logged as needing a restart. Never stops the process.
 */
function reloadFrom(file: string | undefined, app: GavelApp): void {
  let next: GavelConfig;
  try {
    next = loadConfig({ file });
  } catch (err) {
    app.logger.error({ err, file, code: err instanceof GavelError ? err.code : undefined }, 'config reload refused: the file is invalid; nothing changed');
    return;
  }
  const { applied, needsRestart } = app.reload(next);
  app.logger.info({ file, applied }, 'config reloaded');
  if (needsRestart.length > 0) app.logger.warn({ keys: needsRestart }, 'config changes that take a restart were not applied');
}

/**
 * With several workers the primary serves the admin port: a port the workers shared would hand each scrape to one
 * worker at random. It sums the workers' metrics per scrape (keeping what exited workers counted), is ready while
 * its listening workers are, passes invalidations and reloads on, and restarts workers with a backoff.
 */
async function superviseWorkers(config: GavelConfig, file: string | undefined): Promise<void> {
  // Shared nothing: each worker boots its own Gavel; the primary only hands out connections and restarts.
  const { createLogger } = await import('./logger.js');
  const logger = createLogger(config);
  let stopping = false;
  const states = new Map<number, WorkerState>();
  const slots = new Map<number, { slot: number; startedAt: number }>();
  const backoff = new Map<number, number>();
  const { ClusterMetrics, startAdminServer } = await import('../metrics/index.js');
  const metrics = new ClusterMetrics();

  // Workers start with Gavel's node flags even when the primary was started without them.
  cluster.setupPrimary({ execArgv: workerExecArgv(process.execArgv) });
  const fork = (slot: number) => {
    if (stopping) return;
    const worker = cluster.fork({ GAVEL_WORKER_SLOT: String(slot) });
    // A message sent just as the worker dies fails on its closed channel; unheard, that 'error' would end the primary.
    worker.on('error', (err: Error) => logger.warn({ err, workerPid: worker.process.pid }, 'worker channel error'));
    slots.set(worker.id, { slot, startedAt: Date.now() });
    metrics.attach(worker, slot);
    worker.on('message', (message: unknown) => {
      if ((message as WorkerState | null)?.gavel === 'state') states.set(worker.id, message as WorkerState);
    });
  };
  const broadcast = (order: PrimaryOrder) => {
    for (const worker of Object.values(cluster.workers ?? {})) if (worker?.isConnected()) worker.send(order, () => undefined);
  };
  const readiness = (): ReadinessReport => {
    const listening = [...states.values()].filter((state) => state.listening);
    const backends: ReadinessReport['backends'] = {};
    for (const state of listening) {
      for (const [name, up] of Object.entries(state.backends)) if (backends[name as keyof typeof backends] !== 'down') backends[name as keyof typeof backends] = up;
    }
    return { ready: !stopping && listening.length > 0 && listening.every((state) => state.ready), backends };
  };

  let admin: { close(): Promise<void> } | undefined;
  if (config.admin.enabled) {
    const { readInvalidationRequest } = await import('../stored/invalidation.js');
    admin = await startAdminServer({
      host: config.admin.host,
      port: config.admin.port,
      metrics,
      workerMetrics: metrics.workers,
      logger,
      readiness,
      invalidation: { read: readInvalidationRequest, apply: (order) => broadcast({ gavel: 'invalidate', order }) },
    });
  }
  for (let slot = 1; slot <= config.server.workers; slot++) fork(slot);
  cluster.on('exit', (worker: Worker, code, signal) => {
    states.delete(worker.id);
    const started = slots.get(worker.id);
    slots.delete(worker.id);
    void metrics.retire(worker, !stopping);
    if (stopping) {
      if (runningWorkers().length === 0) {
        metrics.close();
        void admin?.close().then(() => process.exit(0));
      }
      return;
    }
    if (!started) return;
    // A worker that dies soon after starting (a boot failure, a crash loop) waits longer each time; a healthy one doesn't.
    const lived = Date.now() - started.startedAt;
    const failures = lived >= STABLE_AFTER_MS ? 0 : (backoff.get(started.slot) ?? 0) + 1;
    backoff.set(started.slot, failures);
    const delay = failures === 0 ? 0 : Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** (failures - 1));
    logger.error({ workerPid: worker.process.pid, code, signal, slot: started.slot, livedMs: lived, restartInMs: delay }, 'worker exited; starting another');
    setTimeout(() => fork(started.slot), delay);
  });
  const stop = () => {
    stopping = true;
    const running = runningWorkers();
    for (const worker of running) worker.process.kill('SIGTERM');
    if (running.length === 0) void admin?.close().then(() => process.exit(0));
    // Never a hang: each worker ends its own drain in time, and the primary does not outwait them.
    setTimeout(() => {
      logger.warn({ drainTimeoutMs: config.server.drainTimeoutMs, running: runningWorkers().length }, 'workers still running past the drain time: exiting');
      process.exit(0);
    }, config.server.drainTimeoutMs + PRIMARY_EXIT_MARGIN_MS).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.on('SIGHUP', () => {
    try {
      loadConfig({ file });
    } catch (err) {
      logger.error({ err, file }, 'config reload refused: the file is invalid; nothing changed');
      return;
    }
    logger.info({ file }, 'config reload: asking the workers');
    broadcast({ gavel: 'reload' });
  });
}

/** The admin port of a lone process; a cluster worker hands its metrics and readiness to the primary instead. */
async function startAdmin(config: GavelConfig, app: GavelApp) {
  if (!config.admin.enabled) return undefined;
  const { PrometheusMetrics, shareWithClusterPrimary, startAdminServer } = await import('../metrics/index.js');
  if (!(app.metrics instanceof PrometheusMetrics)) return undefined;
  if (cluster.isWorker) {
    shareWithClusterPrimary(app.metrics);
    return undefined;
  }
  const { readInvalidationRequest } = await import('../stored/invalidation.js');
  return startAdminServer({
    host: config.admin.host,
    port: config.admin.port,
    metrics: app.metrics,
    logger: app.logger,
    readiness: () => app.readiness.report(),
    invalidation: { read: readInvalidationRequest, apply: (order) => invalidate(app, order) },
    mounts: app.adminMounts,
  });
}

function invalidate(app: GavelApp, order: InvalidationOrder): void {
  app.stored.invalidate?.('all' in order ? undefined : (order.changes as Parameters<NonNullable<GavelApp['stored']['invalidate']>>[0]));
  app.logger.info('all' in order ? { all: true } : { count: order.changes.length }, 'stored data invalidated');
}

/** In a worker: tells the primary whether it listens and is ready, on every change and twice a second. */
function reportToPrimary(app: GavelApp): () => void {
  const send = () => {
    if (!process.connected) return;
    const report = app.readiness.report();
    process.send?.({ gavel: 'state', listening: app.readiness.listening && !app.readiness.draining, ...report } satisfies WorkerState);
  };
  const timer = setInterval(send, 500);
  timer.unref();
  return send;
}

/** Past `server.drainTimeoutMs`, how long the pools and backends get to close before the process exits regardless. */
const DRAIN_EXIT_MARGIN_MS = 250;

async function serve(config: GavelConfig, file: string | undefined): Promise<void> {
  applyRuntimeFlags();
  if (config.server.workers > 1 && cluster.isPrimary) return superviseWorkers(config, file);
  if (cluster.isWorker && config.admin.enabled) (await import('../metrics/index.js')).answerClusterScrapes();
  // Imported here, not at the top: a cluster primary only forks, so it never loads the server's code.
  const [{ bootGavel }, { bootLine }] = await Promise.all([import('./boot.js'), import('./boot-report.js')]);
  const app = await bootGavel(config);
  // Node's own warnings go to the log as JSON like every other line, not raw to stderr.
  process.removeAllListeners('warning');
  process.on('warning', (warning) => app.logger.warn({ err: warning }, 'node warning'));
  let closing = false;
  const admin = await startAdmin(config, app);
  const server = await app.listen();
  const bound = server.address() as { address: string; port: number };
  const listeners = { public: `http://${bound.address}:${bound.port}`, ...(admin && { admin: `http://${admin.host}:${admin.port}` }) };
  app.logger.info(bootLine(config, app.plugins, app.bidders, { configFile: file && resolve(file), listeners }), 'gavel started');
  const report = cluster.isWorker ? reportToPrimary(app) : undefined;
  report?.();
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.logger.info({ signal, drainTimeoutMs: config.server.drainTimeoutMs }, 'draining and shutting down');
    // The admin port is released at once, so a new process can take it while this one drains.
    const adminClosed = admin?.close();
    // The drain is hard: whatever still holds the process (a backend's close) does not past this.
    setTimeout(() => {
      app.logger.warn({ drainTimeoutMs: config.server.drainTimeoutMs }, 'drain time over: exiting with work still open');
      process.exit(0);
    }, config.server.drainTimeoutMs + DRAIN_EXIT_MARGIN_MS).unref();
    const closed = app.close();
    report?.();
    closed.then(
      async () => {
        await adminClosed;
        process.exit(0);
      },
      (err) => {
        app.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  // A reload never stops the process: SIGHUP to this process, or the primary passing one on.
  process.on('SIGHUP', () => reloadFrom(file, app));
  process.on('message', (message: unknown) => {
    const order = message as PrimaryOrder | null;
    if (order?.gavel === 'reload') reloadFrom(file, app);
    else if (order?.gavel === 'invalidate') invalidate(app, order.order);
  });
}

async function listPlugins(config: GavelConfig): Promise<void> {
  const { discoverPlugins } = await import('../plugins/discover.js');
  const plugins = await discoverPlugins({ packages: config.plugins });
  const rows: string[][] = [['NAME', 'VERSION', 'KIND', 'PROVIDES / STAGES / ALIAS OF', 'SOURCE']];
  for (const { manifest, source } of plugins.adapters.values()) rows.push([manifest.name, manifest.version, 'adapter', manifest.info.aliasOf ?? '-', source.kind]);
  for (const { manifest, source, builtIn } of plugins.modules.values()) rows.push([manifest.code, manifest.version, builtIn ? 'module (built-in)' : 'module', [...Object.keys(manifest.provides ?? {}), ...(manifest.analytics ? ['analytics'] : []), ...(manifest.stages ?? [])].join(','), source.kind]);
  printTable(rows);
  const configured = Object.keys(config.bidders);
  if (configured.length === 0) return;
  // The bidders the config declares or adjusts, as the catalog resolves them (endpoint, enabled).
  const { buildBidderCatalog } = await import('../bidders/catalog.js');
  const { bidderSummaries } = await import('./boot-report.js');
  const { createLogger } = await import('./logger.js');
  const catalog = buildBidderCatalog(config, plugins, createLogger({ ...config, logging: { ...config.logging, level: 'silent' } }));
  const bidderRows = [['BIDDER', 'ADAPTER', 'ENDPOINT HOST', 'STATUS']];
  for (const bidder of bidderSummaries(config, catalog)) {
    if (bidder.configured) bidderRows.push([bidder.name, bidder.aliasOf ?? bidder.adapter, bidder.endpointHost ?? '-', bidder.enabled ? 'enabled' : 'disabled']);
  }
  console.log('');
  printTable(bidderRows);
}

function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
}

/** `gavel db migrate` and `gavel db check`: the stored-data schema in the PostgreSQL of `storedRequests.postgres`. */
async function database(action: string | undefined, config: GavelConfig): Promise<void> {
  if (action !== 'migrate' && action !== 'check') {
    console.error(USAGE);
    process.exit(2);
  }
  const postgres = config.storedRequests.postgres;
  if (!postgres?.url) {
    console.error('gavel: storedRequests.postgres.url is not set: give it in the --config file or as GAVEL_STOREDREQUESTS__POSTGRES__URL');
    process.exit(2);
  }
  const { default: pg } = await import('pg');
  const { checkStoredDataSchema, migrateStoredData } = await import('../stored/migrations.js');
  const pool = new pg.Pool({ connectionString: postgres.url, max: 1, connectionTimeoutMillis: Math.max(postgres.connectTimeoutMs ?? 0, 5000), application_name: 'gavel-migrate' });
  try {
    if (action === 'migrate') {
      const result = await migrateStoredData(pool, postgres.table);
      if (result.applied.length === 0) {
        console.log(`${result.table}: schema is current (version ${result.to})`);
        for (const repaired of result.repaired) console.log(`  repaired: ${repaired}`);
      } else {
        console.log(`${result.table}: schema version ${result.from} -> ${result.to}`);
        for (const step of result.applied) console.log(`  applied ${step.version}: ${step.name}`);
      }
      return;
    }
    const check = await checkStoredDataSchema(pool, postgres.table);
    if (check.ok) {
      console.log(`${check.table}: schema is current (version ${check.version})`);
      return;
    }
    console.log(`${check.table}: schema version ${check.version}, latest ${check.latest}`);
    for (const step of check.pending) console.log(`  pending ${step.version}: ${step.name}`);
    for (const problem of check.problems) console.log(`  problem: ${problem}`);
    console.log('run `gavel db migrate` to bring it up to date');
    process.exitCode = 1;
  } finally {
    await pool.end();
  }
}

async function main(): Promise<void> {
  const [command = 'serve', ...args] = process.argv.slice(2);
  try {
    switch (command) {
      case 'serve': {
        const file = option(args, '--config') ?? process.env.GAVEL_CONFIG;
        return await serve(loadConfig({ file }), file);
      }
      case 'plugins':
        return await listPlugins(loadConfig({ file: option(args, '--config') }));
      case 'db':
        return await database(args[0], loadConfig({ file: option(args, '--config') }));
      case 'validate-config': {
        const file = args[0] ?? option(args, '--config');
        if (!file) {
          console.error(USAGE);
          process.exit(2);
        }
        const config = loadConfig({ file, env: {} });
        // Booting the plugins checks what only they can: adapters named by bidders, modules, hook plans.
        const { bootGavel } = await import('./boot.js');
        const app = await bootGavel({ ...config, logging: { ...config.logging, level: 'silent' } });
        await app.close();
        for (const warning of app.configWarnings) console.error(`gavel: warning: ${warning.key}: ${warning.message}`);
        console.log(`${file}: valid${app.configWarnings.length > 0 ? ` (${app.configWarnings.length} warning${app.configWarnings.length > 1 ? 's' : ''})` : ''}`);
        return;
      }
      default:
        console.error(USAGE);
        process.exit(2);
    }
  } catch (err) {
    fail(err);
  }
}

await main();
