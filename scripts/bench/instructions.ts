/**
 * Gavel and the floor under valgrind's callgrind, with a simulated cache the size of this machine's L2: the
 * instructions each runs per auction and the cache misses they cause. Unlike auctions/s, these counts do not move
 * with the other work on the machine, so a change's effect can be read from one run. Both servers run at once on
 * core 0 (valgrind slows them about 50 times), get the same warm-up, and are measured over the same number of
 * auctions, two at a time, from core 1. About 15 minutes; valgrind must be installed.
 *
 *   node dist/scripts/bench/instructions.js [--bidders N] [--production] [--warmup N] [--auctions N] [--l2 BYTES]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { BenchFailure, commandExists, isEntryPoint, ProcessGroup } from './processes.js';
import { auctionRequest, scenario, scenarioLabel } from './scenarios.js';
import { findSharedBench, FLOOR_PORT, GAVEL_PORT, prepareFloor, startFloor, startGavel, startMockBidders, type BenchContext, type RunningServer } from './servers.js';

/** What callgrind counts with `--cache-sim=yes`, in the order of its `events:` line. */
const EVENTS = ['Ir', 'Dr', 'Dw', 'I1mr', 'D1mr', 'D1mw', 'ILmr', 'DLmr', 'DLmw'] as const;
type Counts = Record<(typeof EVENTS)[number], number>;

export interface ServerCounts {
  server: string;
  /** The main thread, per auction. */
  perAuction: Counts;
  /** V8's and libuv's other threads (compiler, GC helpers), instructions per auction. */
  otherThreadsIr: number;
}

function option(args: string[], name: string, fallback: number): number {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
}

/** Sends `count` auctions, `concurrency` at a time, and fails on any answer but a 200. */
async function sendAuctions(port: number, body: string, count: number, concurrency: number): Promise<void> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: concurrency });
  let left = count;
  let failed = 0;
  const worker = async (): Promise<void> => {
    while (left-- > 0) {
      const answer = await pool.request({ path: '/openrtb2/auction', method: 'POST', body, headers: { 'content-type': 'application/json' } });
      await answer.body.text();
      if (answer.statusCode !== 200) failed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await pool.close();
  // The warm-up may meet the load shedder while valgrind is still compiling; the measured auctions may not.
  if (failed > 0) throw new BenchFailure(`${failed} of ${count} auctions on port ${port} were not answered 200`);
}

/** Each thread's totals in a callgrind dump: files `<base>.<part>-<thread>`, thread 01 the main one. */
export function readDump(dir: string, base: string, part: number): { main: Counts; others: Counts[] } {
  const threads = readdirSync(dir)
    .filter((file) => file.startsWith(`${base}.${part}-`))
    .sort()
    .map((file) => readCounts(readFileSync(join(dir, file), 'utf8')));
  if (threads.length === 0) throw new BenchFailure(`no callgrind dump ${base}.${part}-* in ${dir}`);
  return { main: threads[0]!, others: threads.slice(1) };
}

export function readCounts(text: string): Counts {
  const events = /^events: (.*)$/m.exec(text)?.[1]?.trim().split(/\s+/) ?? [];
  const summary = /^summary: (.*)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
  const counts = Object.fromEntries(EVENTS.map((name) => [name, 0])) as Counts;
  events.forEach((name, index) => {
    if (name in counts) counts[name as keyof Counts] = summary[index] ?? 0;
  });
  return counts;
}

export function perAuction(server: string, dump: { main: Counts; others: Counts[] }, auctions: number): ServerCounts {
  const main = Object.fromEntries(EVENTS.map((name) => [name, dump.main[name] / auctions])) as Counts;
  return { server, perAuction: main, otherThreadsIr: dump.others.reduce((sum, thread) => sum + thread.Ir, 0) / auctions };
}

export function instructionsMarkdown(label: string, gavel: ServerCounts, floor: ServerCounts, l2Bytes: number): string {
  const l2 = (c: Counts) => c.ILmr + c.DLmr + c.DLmw;
  const rows: Array<[string, (s: ServerCounts) => number]> = [
    ['instructions (main thread)', (s) => s.perAuction.Ir],
    ['L1 instruction misses', (s) => s.perAuction.I1mr],
    ['L1 data misses', (s) => s.perAuction.D1mr + s.perAuction.D1mw],
    [`L2 (${l2Bytes / 1024} KiB) instruction misses`, (s) => s.perAuction.ILmr],
    [`L2 (${l2Bytes / 1024} KiB) data misses`, (s) => s.perAuction.DLmr + s.perAuction.DLmw],
    ['L2 misses, all', (s) => l2(s.perAuction)],
    ['instructions (other threads)', (s) => s.otherThreadsIr],
  ];
  const lines = [`Per auction, ${label}:`, '', '| | Gavel | floor | Gavel / floor |', '|---|---:|---:|---:|'];
  for (const [name, read] of rows) lines.push(`| ${name} | ${Math.round(read(gavel)).toLocaleString('en')} | ${Math.round(read(floor)).toLocaleString('en')} | ${(read(gavel) / read(floor)).toFixed(2)} |`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (!commandExists('valgrind') || !commandExists('callgrind_control')) throw new BenchFailure('valgrind is not installed (apt-get install -y valgrind)');
  const shape = scenario(option(args, '--bidders', 3), 1, args.includes('--production') ? 'production' : 'bare');
  const warmup = option(args, '--warmup', 3000);
  const auctions = option(args, '--auctions', 1000);
  const l2Bytes = option(args, '--l2', 512 * 1024);
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  const sharedBench = findSharedBench(repoRoot);
  const workDir = mkdtempSync(join(tmpdir(), 'gavel-instructions-'));
  const context: BenchContext = { repoRoot, sharedBench, workDir, processes: new ProcessGroup(workDir), serverCpus: '0', helperCpus: '1' };
  const floorScript = prepareFloor(context);
  if (!floorScript) throw new BenchFailure('../shared/bench/floor.mjs was not found beside the repository');
  const under = (name: string) => ({
    command: ['valgrind', '--tool=callgrind', '--cache-sim=yes', `--LL=${l2Bytes},8,64`, '--separate-threads=yes', '--dump-instr=no', `--callgrind-out-file=${join(workDir, `callgrind-${name}`)}`],
    // Gavel compiles its schemas at boot: a few minutes under valgrind.
    bootTimeoutMs: 15 * 60_000,
  });
  const mocks = await startMockBidders(context, true);
  try {
    const [floor, gavel] = await Promise.all([
      startFloor(context, floorScript, { cpus: context.serverCpus, under: under('floor') }),
      startGavel(context, { workers: 1, cpus: context.serverCpus, under: under('gavel') }),
    ]);
    const body = JSON.stringify(auctionRequest(shape));
    const measure = async (server: RunningServer, port: number, name: string): Promise<ServerCounts> => {
      await sendAuctions(port, body, warmup, 2).catch(() => undefined);
      const pid = String(server.process.pid);
      execFileSync('callgrind_control', ['-z', pid], { stdio: 'ignore' });
      await sendAuctions(port, body, auctions, 2);
      execFileSync('callgrind_control', ['-d', 'measured', pid], { stdio: 'ignore' });
      return perAuction(name, readDump(workDir, `callgrind-${name}`, 1), auctions);
    };
    // One after the other, so neither is measured while the other's warm-up shares its core.
    const floorCounts = await measure(floor, FLOOR_PORT, 'floor');
    const gavelCounts = await measure(gavel, GAVEL_PORT, 'gavel');
    console.log(instructionsMarkdown(`${scenarioLabel(shape)}, ${auctions} auctions after ${warmup} of warm-up`, gavelCounts, floorCounts, l2Bytes));
  } finally {
    await context.processes.stopAll();
    await mocks.stop();
  }
}

if (isEntryPoint(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(err instanceof BenchFailure ? err.message : err);
    process.exit(1);
  });
}
