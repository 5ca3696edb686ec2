#!/usr/bin/env node
import 'reflect-metadata';
import cluster from 'node:cluster';
import { GavelError } from '../api/index.js';
import { loadConfig, type GavelConfig } from '../config/index.js';
import type { GavelApp } from './boot.js';

const USAGE = `usage: gavel <command> [options]
  serve [--config FILE]            run the server (config also from GAVEL_CONFIG and GAVEL_* variables)
  plugins [--config FILE]          list the discovered adapters and modules
  validate-config FILE             check a config file and exit 0 (valid) or 1 (names what is wrong)`;

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

function fail(err: unknown): never {
  if (err instanceof GavelError) console.error(`gavel: ${err.code}: ${err.message}`);
  else console.error(`gavel: ${(err as Error)?.stack ?? String(err)}`);
  process.exit(1);
}

/**
 * With several workers the primary serves the admin port: a port the workers shared would hand each scrape to one
 * worker at random. It sums the workers' metrics per scrape and is ready while any worker listens.
 */
async function superviseWorkers(config: GavelConfig): Promise<void> {
  // Shared nothing: each worker boots its own Gavel; the primary only hands out connections and restarts.
  let stopping = false;
  const listening = new Set<number>();
  let admin: { close(): Promise<void> } | undefined;
  if (config.admin.enabled) {
    const { ClusterMetricsExposition, startAdminServer } = await import('../metrics/index.js');
    const { createLogger } = await import('./logger.js');
    admin = await startAdminServer({
      host: config.admin.host,
      port: config.admin.port,
      metrics: new ClusterMetricsExposition(),
      logger: createLogger(config),
      readiness: () => !stopping && listening.size > 0,
    });
  }
  for (let i = 0; i < config.server.workers; i++) cluster.fork();
  cluster.on('listening', (worker) => listening.add(worker.id));
  cluster.on('exit', (worker, code) => {
    listening.delete(worker.id);
    if (!stopping) {
      console.error(`gavel: worker ${worker.process.pid} exited with ${code}; starting another`);
      cluster.fork();
    } else if (Object.keys(cluster.workers ?? {}).length === 0) {
      void admin?.close();
    }
  });
  const stop = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** The admin port of a lone process; a cluster worker hands its metrics to the primary instead. */
async function startAdmin(config: GavelConfig, app: GavelApp, readiness: () => boolean) {
  if (!config.admin.enabled) return undefined;
  const { PrometheusMetrics, shareWithClusterPrimary, startAdminServer } = await import('../metrics/index.js');
  if (!(app.metrics instanceof PrometheusMetrics)) return undefined;
  if (cluster.isWorker) {
    shareWithClusterPrimary(app.metrics);
    return undefined;
  }
  return startAdminServer({ host: config.admin.host, port: config.admin.port, metrics: app.metrics, logger: app.logger, readiness });
}

async function serve(config: GavelConfig): Promise<void> {
  if (config.server.workers > 1 && cluster.isPrimary) return superviseWorkers(config);
  if (cluster.isWorker && config.admin.enabled) (await import('../metrics/index.js')).answerClusterScrapes();
  // Imported here, not at the top: a cluster primary only forks, so it never loads the server's code.
  const { bootGavel } = await import('./boot.js');
  const app = await bootGavel(config);
  let listening = false;
  let closing = false;
  const admin = await startAdmin(config, app, () => listening && !closing);
  await app.listen();
  listening = true;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.logger.info({ signal, drainTimeoutMs: config.server.drainTimeoutMs }, 'draining and shutting down');
    app.close().then(
      async () => {
        await admin?.close();
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
}

async function listPlugins(config: GavelConfig): Promise<void> {
  const { discoverPlugins } = await import('../plugins/discover.js');
  const plugins = await discoverPlugins({ packages: config.plugins });
  const rows: string[][] = [['NAME', 'VERSION', 'KIND', 'STAGES / ALIAS OF', 'SOURCE']];
  for (const { manifest, source } of plugins.adapters.values()) rows.push([manifest.name, manifest.version, 'adapter', manifest.info.aliasOf ?? '-', source.kind]);
  for (const { manifest, source, builtIn } of plugins.modules.values()) rows.push([manifest.code, manifest.version, builtIn ? 'module (built-in)' : 'module', manifest.stages.join(','), source.kind]);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
}

async function main(): Promise<void> {
  const [command = 'serve', ...args] = process.argv.slice(2);
  try {
    switch (command) {
      case 'serve':
        return await serve(loadConfig({ file: option(args, '--config') }));
      case 'plugins':
        return await listPlugins(loadConfig({ file: option(args, '--config') }));
      case 'validate-config': {
        const file = args[0] ?? option(args, '--config');
        if (!file) {
          console.error(USAGE);
          process.exit(2);
        }
        const config = loadConfig({ file, env: {} });
        // Booting the plugins checks what only they can: adapters named by bidders, modules, hook plans.
        const { bootGavel } = await import('./boot.js');
        const app = await bootGavel({ ...config, logging: { level: 'silent' } });
        await app.close();
        console.log(`${file}: valid`);
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
