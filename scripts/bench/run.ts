import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderChart } from './chart.js';
import { combineRounds, runLoad, type LoadPlan, type LoadResult, type LoadTool } from './load.js';
import { BenchFailure, commandExists, ProcessGroup } from './processes.js';
import { cpuTimeMicros, currentRssMb, peakRssMb, processTree } from './proc-stats.js';
import { summariseProfile, type CpuProfile, type ProfileSummary } from './profile-summary.js';
import { chartRows, compareScenarios, failedRuns, markdownReport, type BenchMeta, type BenchReport, type Measurement } from './report.js';
import { ALL_SCENARIOS, answerProblem, auctionRequest, parseScenarioId, REFERENCE_SCENARIO, scenario, type Scenario } from './scenarios.js';
import { findSharedBench, GAVEL_PORT, prepareFloor, SECOND_GAVEL_PORT, startFloor, startGavel, startMockBidders, type BenchContext, type MockBidders, type RunningServer } from './servers.js';

const USAGE = `usage: npm run bench -- [options]
  --smoke            about 15 s: 2 scenarios, 1 round of 1 s, no warm-up (CI: fails unless every answer is a right 200)
  --profile          also run Gavel and the floor under --cpu-prof on the production request at 3 bidders x 1 imp
                     (with --scenarios: on the first scenario listed)
  --no-workers       leave out the 1-worker against 2-worker comparison
  --rounds N         alternating measured rounds per server and scenario (default 3)
  --duration S       seconds per round (default 4)
  --warmup S         warm-up seconds per server and scenario (default 10: V8 is still optimising Gavel's code
                     for about the first 10 s of load; see docs/performance.md)
  --connections N    concurrent connections of the load generator (default 32)
  --scenarios LIST   only these scenarios, e.g. prod-3b-1i,3b-1i,prod-3b-1i-no-cache (default: the production request
                     at 1, 3 and 5 bidders; the bare one at 1, 3 and 5 bidders x 1 and 5 imps; the production
                     request at 3 bidders without each of its pieces: cache, privacy, floors, eids, schain)
  --no-wrk           use the Node load generator even if wrk is installed
  --no-nginx         use the Node mock bidders even if nginx is installed
  --modules          run Gavel with the price floors and ortb2 blocking modules on (servers.ts BENCH_MODULES)`;

/**
 * Warm-up per server and scenario. Each scenario starts fresh processes, and V8 goes on optimising Gavel's functions
 * (about 1,250 of them on the 3-bidder request) for roughly the first 10 s of load: measured from the 3rd second, a
 * round still paid for compilation the floor (one small file) finishes at once. Both servers get the same warm-up.
 */
const DEFAULT_WARMUP_S = 10;

interface Options {
  workers: boolean;
  scenariosGiven: boolean;
  mode: 'full' | 'smoke';
  profile: boolean;
  rounds: number;
  durationS: number;
  warmupS: number;
  connections: number;
  scenarios: Scenario[];
  allowWrk: boolean;
  allowNginx: boolean;
  /** Gavel runs with prebid.floors and prebid.ortb2blocking on. */
  modules: boolean;
}

// The smoke run covers the reference scenario (production-shaped, also used by the worker comparison), the bare
// request at 3 bidders and the heaviest bare one.
const SMOKE_SCENARIOS = [REFERENCE_SCENARIO, scenario(3, 1), scenario(5, 5)];

function scenarioOption(args: string[]): Scenario[] | undefined {
  const index = args.indexOf('--scenarios');
  if (index < 0) return undefined;
  return (args[index + 1] ?? '').split(',').map((id) => {
    const parsed = parseScenarioId(id);
    if (!parsed) throw new BenchFailure(`--scenarios takes ids like 3b-1i, prod-3b-1i or prod-3b-1i-no-cache (1 to 5 bidders), got "${id}"\n${USAGE}`);
    return parsed;
  });
}

function parseOptions(args: string[]): Options {
  const smoke = args.includes('--smoke');
  const numberOption = (name: string, fallback: number) => {
    const index = args.indexOf(name);
    if (index < 0) return fallback;
    const value = Number(args[index + 1]);
    if (!Number.isInteger(value) || value < 0) throw new BenchFailure(`${name} takes a whole number, got "${args[index + 1]}"\n${USAGE}`);
    return value;
  };
  const known = new Set(['--smoke', '--profile', '--rounds', '--duration', '--warmup', '--connections', '--scenarios', '--no-wrk', '--no-nginx', '--modules', '--no-workers']);
  const unknown = args.filter((arg) => arg.startsWith('--') && !known.has(arg));
  if (unknown.length > 0 || args.includes('--help')) throw new BenchFailure(`${unknown.length > 0 ? `unknown option ${unknown.join(' ')}\n` : ''}${USAGE}`);
  return {
    mode: smoke ? 'smoke' : 'full',
    profile: args.includes('--profile'),
    rounds: Math.max(1, numberOption('--rounds', smoke ? 1 : 3)),
    // wrk takes whole seconds; one is the shortest run that still gives percentiles.
    durationS: Math.max(1, numberOption('--duration', smoke ? 1 : 4)),
    warmupS: numberOption('--warmup', smoke ? 0 : DEFAULT_WARMUP_S),
    connections: Math.max(1, numberOption('--connections', smoke ? 8 : 32)),
    scenarios: scenarioOption(args) ?? (smoke ? SMOKE_SCENARIOS : ALL_SCENARIOS),
    allowWrk: !args.includes('--no-wrk'),
    allowNginx: !args.includes('--no-nginx'),
    modules: args.includes('--modules'),
    workers: !args.includes('--no-workers'),
    scenariosGiven: args.includes('--scenarios'),
  };
}

/** One POST on a fresh connection, so that no idle keep-alive socket holds the server open when it is stopped. */
function postOnce(port: number, path: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolvePost, reject) => {
    const call = request({ host: '127.0.0.1', port, path, method: 'POST', agent: false, headers: { 'content-type': 'application/json', connection: 'close' } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.once('end', () => resolvePost({ status: response.statusCode ?? 0, text }));
    });
    call.once('error', reject);
    call.end(body);
  });
}

/** The number of bidders a Gavel server lists at `GET /info/bidders`; undefined if it cannot be read. */
function countBidders(port: number): Promise<number | undefined> {
  return new Promise((resolveCount) => {
    const call = request({ host: '127.0.0.1', port, path: '/info/bidders', agent: false, headers: { connection: 'close' } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.once('end', () => {
        try {
          const list: unknown = JSON.parse(text);
          resolveCount(Array.isArray(list) ? list.length : undefined);
        } catch {
          resolveCount(undefined);
        }
      });
    });
    call.once('error', () => resolveCount(undefined));
    call.end();
  });
}

/** The measured stretch of a profiled run: monotonic microseconds, and the auctions served in it. */
interface ProfileWindow {
  fromUs: number;
  toUs: number;
  auctions: number;
}

/** A server to measure, and how to start it (optionally under the CPU profiler). */
interface Contender {
  server: Measurement['server'];
  workers: number;
  pinned: boolean;
  start(cpuProfileDir?: string): Promise<RunningServer>;
}

class Bench {
  private readonly bodyFiles = new Map<string, string>();
  /** How many bidders Gavel knows (`GET /info/bidders`), read from the first Gavel started. */
  gavelBidders: number | undefined;

  constructor(
    private readonly context: BenchContext,
    private readonly options: Options,
    private readonly loadTool: LoadTool,
  ) {}

  private bodyFile(s: Scenario): string {
    let file = this.bodyFiles.get(s.id);
    if (!file) {
      file = join(this.context.workDir, `body-${s.id}.json`);
      writeFileSync(file, JSON.stringify(auctionRequest(s)));
      this.bodyFiles.set(s.id, file);
    }
    return file;
  }

  private load(server: RunningServer, s: Scenario, durationS: number): Promise<LoadResult> {
    const plan: LoadPlan = {
      tool: this.loadTool,
      url: `http://127.0.0.1:${server.port}/openrtb2/auction`,
      bodyFile: this.bodyFile(s),
      connections: this.options.connections,
      durationS,
      cpus: this.context.helperCpus,
      postLua: join(this.context.sharedBench ?? '', 'post.lua'),
      loadGeneratorScript: join(this.context.repoRoot, 'dist/scripts/bench/load-generator.js'),
    };
    return runLoad(plan);
  }

  /** Starts a server and checks that it answers the scenario's auction correctly before any load. */
  private async startChecked(contender: Contender, s: Scenario, cpuProfileDir?: string): Promise<RunningServer> {
    const server = await contender.start(cpuProfileDir);
    try {
      const probe = await postOnce(server.port, '/openrtb2/auction', readFileSync(this.bodyFile(s), 'utf8'));
      const problem = answerProblem(s, probe.status, probe.text, contender.server);
      if (problem) throw new BenchFailure(`${server.name} answered the ${s.id} auction wrongly: ${problem}\n${server.process.logTail()}`);
      return server;
    } catch (err) {
      await server.process.stop();
      throw err;
    }
  }

  private async warmUp(server: RunningServer, s: Scenario): Promise<number> {
    return this.options.warmupS > 0 ? (await this.load(server, s, this.options.warmupS)).requests : 0;
  }

  /**
   * Starts the contenders side by side (an idle server costs nothing), warms each up, then measures them in
   * alternating rounds, so that a neighbour's load on this shared machine hits all of them alike; then stops them.
   */
  async measureTogether(s: Scenario, contenders: Contender[]): Promise<Measurement[]> {
    const servers: RunningServer[] = [];
    try {
      for (const contender of contenders) servers.push(await this.startChecked(contender, s));
      // Read before any load: what the process holds once booted (and one auction answered).
      const bootRss = servers.map((server) => currentRssMb(processTree(server.process.pid)));
      for (const [index, contender] of contenders.entries()) {
        if (contender.server === 'gavel' && this.gavelBidders === undefined) this.gavelBidders = await countBidders(servers[index]!.port);
      }
      for (const server of servers) await this.warmUp(server, s);
      const rounds = contenders.map((): LoadResult[] => []);
      const cpuMicros = contenders.map((): number | undefined => 0);
      for (let round = 0; round < this.options.rounds; round++) {
        const order = contenders.map((_, index) => index);
        if (round % 2 === 1) order.reverse();
        for (const index of order) {
          const pids = processTree(servers[index]!.process.pid);
          const before = cpuTimeMicros(pids);
          rounds[index]!.push(await this.load(servers[index]!, s, this.options.durationS));
          const after = cpuTimeMicros(pids);
          const sofar = cpuMicros[index];
          cpuMicros[index] = sofar === undefined || before === undefined || after === undefined ? undefined : sofar + after - before;
        }
      }
      return contenders.map((contender, index) => {
        const load = combineRounds(rounds[index]!);
        const cpu = cpuMicros[index];
        const measurement: Measurement = {
          server: contender.server,
          scenario: s,
          workers: contender.workers,
          pinned: contender.pinned,
          load,
          rounds: rounds[index]!,
          peakRssMb: peakRssMb(processTree(servers[index]!.process.pid)),
          bootMs: servers[index]!.bootMs,
          bootRssMb: bootRss[index],
          cpuUsPerAuction: cpu !== undefined && load.requests > 0 ? cpu / load.requests : undefined,
        };
        logMeasurement(measurement);
        return measurement;
      });
    } finally {
      for (const server of servers) await server.process.stop();
    }
  }

  /**
   * Runs one contender under --cpu-prof for as long as a measurement lasts and summarises the samples taken during
   * the measured load only (the profile's clock is the system's monotonic clock, as process.hrtime's).
   */
  async profile(contender: Contender, s: Scenario, outputFile: string): Promise<ProfileSummary & { window: ProfileWindow }> {
    const profileDir = mkdtempSync(join(this.context.workDir, 'cpu-profile-'));
    const server = await this.startChecked(contender, s, profileDir);
    let window: ProfileWindow;
    try {
      await this.warmUp(server, s);
      const fromUs = Number(process.hrtime.bigint() / 1000n);
      const load = await this.load(server, s, this.options.durationS * this.options.rounds);
      window = { fromUs, toUs: Number(process.hrtime.bigint() / 1000n), auctions: load.requests };
      console.error(`${contender.server.padEnd(5)} ${contender.workers}w ${s.id} under the profiler: ${Math.round(load.rps)} auctions/s`);
    } finally {
      // The profile is written as the process exits.
      await server.process.stop();
    }
    const written = readdirSync(profileDir).find((file) => file.endsWith('.cpuprofile'));
    if (!written) throw new BenchFailure(`the profiled ${contender.server} exited without writing a .cpuprofile:\n${server.process.logTail()}`);
    copyFileSync(join(profileDir, written), outputFile);
    return { ...summariseProfile(JSON.parse(readFileSync(outputFile, 'utf8')) as CpuProfile, window), window };
  }
}

function logMeasurement(m: Measurement): void {
  const { load } = m;
  const failures = load.non200 + load.errors > 0 ? `, ${load.non200} not 200, ${load.errors} errors` : '';
  const rounds = m.rounds.length > 1 ? ` (rounds: ${m.rounds.map((round) => Math.round(round.rps)).join(' / ')})` : '';
  console.error(
    `${m.server.padEnd(5)} ${m.workers}w ${m.scenario.id}: ${Math.round(load.rps)} auctions/s${rounds}, p50 ${load.p50Ms.toFixed(1)} ms, p99 ${load.p99Ms.toFixed(1)} ms, ` +
      `peak RSS ${m.peakRssMb?.toFixed(0) ?? 'n/a'} MB, ${m.cpuUsPerAuction?.toFixed(0) ?? 'n/a'} us CPU/auction${failures}`,
  );
}

function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, '').replace(/[-:]/g, '').replace('T', '-');
}

function gitRevision(repoRoot: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() + ' (working tree may hold uncommitted changes)';
  } catch {
    return 'unknown';
  }
}

interface Setup {
  repoRoot: string;
  context: BenchContext;
  canPin: boolean;
  loadTool: LoadTool;
  startedAt: Date;
  loadAverageBefore: number[];
  notes: string[];
}

function setUp(options: Options): Setup {
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  const sharedBench = findSharedBench(repoRoot);
  const canPin = availableParallelism() >= 2 && commandExists('taskset');
  const workDir = mkdtempSync(join(tmpdir(), 'gavel-bench-'));
  const context: BenchContext = {
    repoRoot,
    sharedBench,
    workDir,
    processes: new ProcessGroup(workDir),
    serverCpus: canPin ? '0' : undefined,
    helperCpus: canPin ? '1' : undefined,
  };
  const wrkUsable = options.allowWrk && commandExists('wrk') && sharedBench !== undefined && existsSync(join(sharedBench, 'post.lua'));
  const notes = wrkUsable ? [] : ['the Node load generator (not wrk) drove the load; it costs more CPU on the helper core than wrk'];
  return { repoRoot, context, canPin, loadTool: wrkUsable ? 'wrk' : 'node', startedAt: new Date(), loadAverageBefore: loadavg(), notes };
}

function describeRun(options: Options, setup: Setup, mocks: MockBidders, gavelBidders: number | undefined): BenchMeta {
  return {
    gavelBidders,
    mode: options.mode,
    startedAt: setup.startedAt.toISOString(),
    node: process.version,
    revision: gitRevision(setup.repoRoot),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    cpus: availableParallelism(),
    loadTool: setup.loadTool === 'wrk' ? 'wrk -t1 with ../shared/bench/post.lua' : 'Node load generator (undici, closed loop)',
    mockBidders: mocks.kind === 'nginx' ? 'nginx with ../shared/bench/nginx.conf' : 'Node mock (same static answers as nginx.conf)',
    pinning: setup.canPin ? 'servers on core 0 (taskset -c 0), load generator and mock bidders on core 1 (taskset -c 1)' : 'none (taskset missing or fewer than 2 CPUs)',
    connections: options.connections,
    warmupS: options.warmupS,
    rounds: options.rounds,
    durationS: options.durationS,
    loadAverageBefore: setup.loadAverageBefore,
    loadAverageAfter: loadavg(),
    notes: setup.notes,
  };
}

/** bench-results/<stem>.json, .svg and .md; the Markdown also goes to stdout. */
function writeOutputs(report: BenchReport, stem: string, repoRoot: string): void {
  const { meta } = report;
  const comparisons = compareScenarios(report.runs);
  const subtitle = `${meta.mode} run ${meta.startedAt}, Node ${meta.node}, ${meta.connections} connections, ${meta.loadTool}, ${meta.mockBidders}`;
  writeFileSync(`${stem}.json`, JSON.stringify({ ...report, comparisons }, null, 2) + '\n');
  writeFileSync(`${stem}.svg`, renderChart(chartRows(comparisons), subtitle) + '\n');
  const markdown = markdownReport(report, relative(repoRoot, `${stem}.svg`));
  writeFileSync(`${stem}.md`, markdown);
  console.log(markdown);
  console.log(`Written: ${['md', 'json', 'svg'].map((extension) => relative(repoRoot, `${stem}.${extension}`)).join(', ')}`);
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const setup = setUp(options);
  const { context, repoRoot } = setup;
  const bench = new Bench(context, options, setup.loadTool);
  let succeeded = false;
  let mocks: MockBidders | undefined;
  try {
    mocks = await startMockBidders(context, options.allowNginx && commandExists('nginx'));
    if (mocks.note) setup.notes.push(mocks.note);
    const floorScript = prepareFloor(context);
    if (!floorScript) setup.notes.push('the floor (../shared/bench/floor.mjs) was not found: no ratios');
    const floor: Contender | undefined = floorScript
      ? { server: 'floor', workers: 1, pinned: setup.canPin, start: (cpuProfileDir) => startFloor(context, floorScript, { cpus: context.serverCpus, cpuProfileDir }) }
      : undefined;
    const gavel = (workers: number, port: number, pinned: boolean): Contender => ({
      server: 'gavel',
      workers,
      pinned,
      start: (cpuProfileDir) => startGavel(context, { workers, port, cpus: pinned ? context.serverCpus : undefined, cpuProfileDir, modules: options.modules }),
    });
    const oneWorker = gavel(1, GAVEL_PORT, setup.canPin);

    const runs: Measurement[] = [];
    for (const s of options.scenarios) runs.push(...(await bench.measureTogether(s, floor ? [floor, oneWorker] : [oneWorker])));
    // The 2-worker server is not pinned: pinned to one core, two workers could only take turns on it.
    const workers = options.workers ? await bench.measureTogether(REFERENCE_SCENARIO, [oneWorker, gavel(2, SECOND_GAVEL_PORT, false)]) : [];

    const outDir = join(repoRoot, 'bench-results');
    mkdirSync(outDir, { recursive: true });
    const stem = join(outDir, `${options.mode === 'smoke' ? 'smoke' : 'bench'}-${timestamp(setup.startedAt)}`);
    let profile: BenchReport['profile'];
    if (options.profile) {
      const files = [`${stem}-gavel.cpuprofile`, `${stem}-floor.cpuprofile`];
      const profiled = options.scenariosGiven ? options.scenarios[0]! : REFERENCE_SCENARIO;
      profile = {
        scenario: profiled,
        files: files.slice(0, floor ? 2 : 1).map((file) => relative(repoRoot, file)),
        gavel: await bench.profile(oneWorker, profiled, files[0]!),
        floor: floor ? await bench.profile(floor, profiled, files[1]!) : undefined,
      };
      setup.notes.push('the profiled runs are not in the tables: the profiler slows the servers down');
    }

    const report: BenchReport = { meta: describeRun(options, setup, mocks, bench.gavelBidders), runs, workers, profile };
    writeOutputs(report, stem, repoRoot);
    const failed = failedRuns(report);
    if (failed.length > 0) {
      console.error(`bench: ${failed.length} run(s) did not get a 200 for every auction (see "Failed runs")`);
      return 1;
    }
    succeeded = true;
    return 0;
  } finally {
    await mocks?.stop();
    await context.processes.stopAll();
    if (succeeded) rmSync(context.workDir, { recursive: true, force: true });
    else console.error(`bench: server logs kept in ${context.workDir}`);
  }
}

// An interrupted run still stops what it started (ProcessGroup stops its processes on exit).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof BenchFailure ? `bench: ${err.message}` : err);
    process.exit(1);
  },
);
