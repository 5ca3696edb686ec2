#!/usr/bin/env node
import 'reflect-metadata';
import cluster from 'node:cluster';
import { GavelError } from '../api/index.js';
import { loadConfig, type GavelConfig } from '../config/index.js';

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

async function serve(config: GavelConfig): Promise<void> {
  if (config.server.workers > 1 && cluster.isPrimary) {
    // Shared nothing: each worker boots its own Gavel; the primary only hands out connections and restarts.
    let stopping = false;
    for (let i = 0; i < config.server.workers; i++) cluster.fork();
    cluster.on('exit', (worker, code) => {
      if (!stopping) {
        console.error(`gavel: worker ${worker.process.pid} exited with ${code}; starting another`);
        cluster.fork();
      }
    });
    const stop = () => {
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    return;
  }
  // Imported here, not at the top: a cluster primary only forks, so it never loads the server's code.
  const { bootGavel } = await import('./boot.js');
  const app = await bootGavel(config);
  await app.listen();
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.logger.info({ signal, drainTimeoutMs: config.server.drainTimeoutMs }, 'draining and shutting down');
    app.close().then(
      () => process.exit(0),
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
