import { copyFileSync, existsSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../core/app/node-flags.js';
import { MOCK_BIDDER_PORT } from './mock-bidders.js';
import { assertPortFree, BenchFailure, pinnedCommand, waitForPort, type ManagedProcess, type ProcessGroup } from './processes.js';
import { BENCH_CACHE_CAP_MB, BENCH_GVL_IDS, bidderNames } from './scenarios.js';

export const FLOOR_PORT = 9800;
export const GAVEL_PORT = 9802;
/** A second Gavel, measured next to the first (the worker comparison). */
export const SECOND_GAVEL_PORT = 9803;
const MAX_BIDDERS = 5;

/** ../shared/bench beside the repository (/work/main and /work/shared), or beside a folder of worktrees (/work/wt/<branch>). */
export function findSharedBench(repoRoot: string): string | undefined {
  return [resolve(repoRoot, '../shared/bench'), resolve(repoRoot, '../../shared/bench')].find((dir) => existsSync(dir));
}

/** Where things are and which CPUs they run on; shared by every start below. */
export interface BenchContext {
  repoRoot: string;
  /** ../shared/bench, when present (nginx.conf, post.lua, floor.mjs). */
  sharedBench?: string;
  workDir: string;
  processes: ProcessGroup;
  /** taskset CPU lists; undefined when not pinning (no taskset, or fewer than 2 CPUs). */
  serverCpus?: string;
  helperCpus?: string;
}

export interface RunningServer {
  name: string;
  port: number;
  process: ManagedProcess;
  /** From the spawn to the first accepted connection (polled every 50 ms). */
  bootMs: number;
}

async function startListening(
  context: BenchContext,
  name: string,
  port: number,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cpus?: string,
  under?: Wrapper,
): Promise<RunningServer> {
  await assertPortFree(port);
  const [wrapped, wrappedArgs] = under ? [under.command[0]!, [...under.command.slice(1), command, ...args]] : [command, args];
  const [pinned, pinnedArgs] = pinnedCommand(cpus, wrapped, wrappedArgs);
  const spawnedAt = performance.now();
  const started = context.processes.spawn(name, pinned, pinnedArgs, { env, cwd: context.repoRoot });
  try {
    await waitForPort(started, port, under?.bootTimeoutMs);
  } catch (err) {
    await started.stop();
    throw err;
  }
  return { name, port, process: started, bootMs: performance.now() - spawnedAt };
}

/** The environment without GAVEL_* overrides, so the generated file alone configures the server under test. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GAVEL_')) env[key] = value;
  return { ...env, NODE_ENV: 'production', ...extra };
}

/**
 * Gavel's config for the benchmark: bidders b0..b4 on the generic `ortb` adapter, quiet logs, and as many upstream
 * connections as the floor's pool (256: all five bidders share one origin) so the two differ in code, not pool size.
 * Validation and targeting are built-in modules, on by default.
 */
export function gavelConfig(workers: number, port: number, modules = false): Record<string, unknown> {
  const names = bidderNames(MAX_BIDDERS);
  const bidders = Object.fromEntries(names.map((name) => [name, { adapter: 'ortb', endpoint: `http://127.0.0.1:${MOCK_BIDDER_PORT}/${name}` }]));
  // The production request's TCF string consents to BENCH_GVL_IDS under this vendor list: every bidder may bid.
  const privacy = { gdpr: { vendorLists: [BENCH_VENDOR_LIST], bidderVendorIds: Object.fromEntries(names.map((name, index) => [name, BENCH_GVL_IDS[index]!])) } };
  return {
    server: { port, host: '127.0.0.1', workers, drainTimeoutMs: 1000 },
    logging: { level: 'warn' },
    // Metrics on, as in production; port 0 because the 1- and 2-worker servers run side by side.
    admin: { port: 0 },
    httpClient: { connectionsPerHost: 256 },
    // The embedded memory store at its default cap, named so the RSS target (150 MB plus the cap) is plain.
    cache: { memory: { maxBytes: BENCH_CACHE_CAP_MB * 1024 * 1024 } },
    bidders,
    privacy,
    ...(modules && BENCH_MODULES),
  };
}

/** The vendor list (version 100) the production request's TCF string names; read from the source tree. */
const BENCH_VENDOR_LIST = fileURLToPath(new URL('../../../scripts/bench/vendor-list-v100.json', import.meta.url));

/**
 * `--modules`: price floors (account rules matched per imp, signalled to every bidder, enforced on every bid; low
 * enough that every mock bid passes) and ortb2 blocking (blocks sent to every bidder, every bid checked).
 */
export const BENCH_MODULES = {
  modules: {
    'prebid.floors': { enabled: true },
    'prebid.ortb2blocking': {
      enabled: true,
      config: {
        attributes: {
          badv: { blocked_adomain: ['blocked.example'], enforce_blocks: true },
          bcat: { blocked_adv_cat: ['IAB25', 'IAB26'], enforce_blocks: true },
          battr: { blocked_banner_attr: [1, 3], enforce_blocks: true },
        },
      },
    },
  },
  accounts: {
    defaults: {
      hooks: {
        modules: {
          prebid: {
            floors: {
              rules: {
                data: {
                  currency: 'USD',
                  modelgroups: [{ schema: { fields: ['mediaType', 'size', 'domain'] }, values: { 'banner|300x250|news.example.com': 0.05, 'banner|*|*': 0.02, '*|*|*': 0.01 }, default: 0.01 }],
                },
              },
            },
          },
        },
      },
    },
  },
};

/** A command the server runs under (valgrind), and how long its slower boot may take. */
export interface Wrapper {
  command: string[];
  bootTimeoutMs: number;
}

export interface StartOptions {
  /** taskset CPU list; undefined runs unpinned. */
  cpus?: string;
  /** Run under `node --cpu-prof`, writing the profile here when the process exits. */
  cpuProfileDir?: string;
  /** Gavel only: the floors and blocking modules on (`--modules`). */
  modules?: boolean;
  /** Run under another command (`instructions.ts`: valgrind). */
  under?: Wrapper;
}

function profilerFlags(options: StartOptions): string[] {
  return options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
}

export async function startGavel(context: BenchContext, options: StartOptions & { workers: number; port?: number }): Promise<RunningServer> {
  const port = options.port ?? GAVEL_PORT;
  const configFile = join(context.workDir, `gavel-${options.workers}w-${port}.yaml`);
  // JSON is YAML, and the loader reads YAML.
  writeFileSync(configFile, JSON.stringify(gavelConfig(options.workers, port, options.modules), null, 2));
  // Started as `npm start` starts it: with Gavel's node flags.
  const args = [...profilerFlags(options), ...NODE_FLAGS, join(context.repoRoot, 'dist/core/app/cli.js'), 'serve', '--config', configFile];
  return startListening(context, `gavel-${options.workers}w`, port, process.execPath, args, cleanEnv({}), options.cpus, options.under);
}

/**
 * ../shared is read-only and its floor needs undici: the floor runs from a copy in the work folder that resolves
 * packages from the project's own node_modules (same undici major as ../shared/bench/package.json asks for).
 */
export function prepareFloor(context: BenchContext): string | undefined {
  const source = context.sharedBench && join(context.sharedBench, 'floor.mjs');
  if (!source || !existsSync(source)) return undefined;
  const dir = join(context.workDir, 'floor');
  mkdirSync(dir, { recursive: true });
  copyFileSync(source, join(dir, 'floor.mjs'));
  symlinkSync(join(context.repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return join(dir, 'floor.mjs');
}

export async function startFloor(context: BenchContext, floorScript: string, options: StartOptions): Promise<RunningServer> {
  const env = cleanEnv({ PORT: String(FLOOR_PORT), BIDDER_BASE: `http://127.0.0.1:${MOCK_BIDDER_PORT}` });
  // The floor dies on SIGTERM without exiting normally, and --cpu-prof writes the profile only on a normal exit.
  const exitOnTerm = options.cpuProfileDir ? ['--import', `data:text/javascript,${encodeURIComponent("process.once('SIGTERM', () => process.exit(0));")}`] : [];
  return startListening(context, 'floor', FLOOR_PORT, process.execPath, [...profilerFlags(options), ...exitOnTerm, floorScript], env, options.cpus, options.under);
}

export interface MockBidders {
  kind: 'nginx' | 'node';
  stop(): Promise<void>;
  /** Why the Node mock runs although nginx was asked for, if it does. */
  note?: string;
}

/** nginx with ../shared/bench/nginx.conf when asked for and it comes up, else the Node mock; on the helper CPU. */
export async function startMockBidders(context: BenchContext, preferNginx: boolean): Promise<MockBidders> {
  const nginxConf = context.sharedBench && join(context.sharedBench, 'nginx.conf');
  let note: string | undefined;
  if (preferNginx && nginxConf && existsSync(nginxConf)) {
    try {
      const nginx = await startListening(context, 'nginx', MOCK_BIDDER_PORT, 'nginx', ['-c', nginxConf], process.env, context.helperCpus);
      return { kind: 'nginx', stop: () => nginx.process.stop() };
    } catch (err) {
      if (!(err instanceof BenchFailure) || /already in use/.test(err.message)) throw err;
      note = `nginx did not start (${err.message.split('\n')[0]}); the Node mock ran instead`;
    }
  }
  const script = join(context.repoRoot, 'dist/scripts/bench/mock-bidders.js');
  const mock = await startListening(context, 'mock-bidders', MOCK_BIDDER_PORT, process.execPath, [script, String(MOCK_BIDDER_PORT)], process.env, context.helperCpus);
  return { kind: 'node', stop: () => mock.process.stop(), note };
}
