/**
 * `npm run chaos`: Gavel under faults, fuzzing and a soak, as a reproducible command with a report.
 *
 *   npm run chaos                         the full run: 40 auctions per fault mode, 10,000 fuzzed requests per
 *                                         endpoint, a 10-minute soak at 200 auctions/s
 *   npm run chaos -- --smoke              a short run for CI (a few auctions per fault, 150 requests per endpoint, a 5 s
 *                                         soak; answers later than tmax + 50 ms are reported, not failed)
 *   --fuzz N  --soak-seconds S  --soak-rate R  --fault-auctions N  --seed N  --out report.json  --skip fault,fuzz,soak
 *
 * Gavel runs as a child process (`gavel serve`) against the simulated bidder, so a crash is seen as an exit and its
 * memory as the kernel counts it. Exits non-zero when any answer was a 5xx, the server crashed, a fault mode was
 * answered later than tmax + 50 ms or without a coded error, or the soak's memory grew.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { FUZZ_ENDPOINTS, fuzzRequests, type FuzzRequest } from './fuzz-inputs.js';

interface Options {
  smoke: boolean;
  fuzz: number;
  soakSeconds: number;
  soakRate: number;
  faultAuctions: number;
  seed: number;
  out?: string;
  skip: Set<string>;
}

function parseOptions(argv: string[]): Options {
  const smoke = argv.includes('--smoke');
  const value = (name: string, fallback: number) => {
    const at = argv.indexOf(name);
    return at === -1 ? fallback : Number(argv[at + 1]);
  };
  const at = argv.indexOf('--out');
  const skipAt = argv.indexOf('--skip');
  return {
    smoke,
    fuzz: value('--fuzz', smoke ? 150 : 10_000),
    soakSeconds: value('--soak-seconds', smoke ? 5 : 600),
    soakRate: value('--soak-rate', smoke ? 50 : 200),
    faultAuctions: value('--fault-auctions', smoke ? 5 : 40),
    seed: value('--seed', 20_26),
    out: at === -1 ? undefined : argv[at + 1],
    skip: new Set(skipAt === -1 ? [] : argv[skipAt + 1]!.split(',')),
  };
}

/** The bidder faults, each a query of the simulated bidder; `coded` is false where no error is due (a 204 no-bid). */
const FAULTS: Array<{ name: string; query: string; coded: boolean }> = [
  { name: 'hang', query: 'hang=1', coded: true },
  { name: 'error500', query: 'status=500', coded: true },
  { name: 'nobid204', query: 'status=204', coded: false },
  { name: 'garbage', query: 'garbage=1', coded: true },
  { name: 'reset', query: 'reset=1', coded: true },
  { name: 'huge', query: 'bytes=10485760', coded: true },
  { name: 'drip', query: 'dripMs=100', coded: true },
  { name: 'negative', query: 'price=-1', coded: true },
];
const TMAX = 300;
const LATE_MS = 50;

interface Gavel {
  child: ChildProcess;
  url: string;
  crashed: () => boolean;
  rssMb: () => number | undefined;
  stop: () => Promise<void>;
}

async function startServer(bidderUrl: string): Promise<Gavel> {
  const bidders: Record<string, unknown> = { healthy: { adapter: 'ortb', endpoint: `${bidderUrl}/rtb?name=healthy&price=1&keep=0` } };
  for (const fault of FAULTS) bidders[fault.name] = { adapter: 'ortb', endpoint: `${bidderUrl}/rtb?name=${fault.name}&${fault.query}&keep=0` };
  const config = { server: { port: 0, host: '127.0.0.1', shedding: { maxAuctionsInFlight: 5000 } }, admin: { enabled: false }, logging: { level: 'info', accessLog: { enabled: false } }, bidders, cache: { clientLimits: { putsPerSecond: 0 } } };
  const file = join(mkdtempSync(join(tmpdir(), 'gavel-chaos-')), 'gavel.yaml');
  writeFileSync(file, JSON.stringify(config));
  const cli = fileURLToPath(new URL('../../core/app/cli.js', import.meta.url));
  const child = spawn(process.execPath, [cli, 'serve', '--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let exited = false;
  let stopping = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  child.once('exit', (code, signal) => {
    if (!stopping) console.error(`gavel exited unexpectedly: code ${code}, signal ${signal}`);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"port":(\d+)[^\n]*"msg":"gavel listening"/.exec(output);
      if (match) resolve(`http://127.0.0.1:${match[1]}`);
      if (output.length > 100_000) output = output.slice(-10_000);
    });
    child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    child.once('exit', () => reject(new Error(`gavel did not start: ${output.slice(-2000)}`)));
  });
  return {
    child,
    url,
    crashed: () => exited && !stopping,
    rssMb: () => readRssMb(child.pid!),
    stop: async () => {
      stopping = true;
      if (!exited) child.kill('SIGTERM');
      await exit;
    },
  };
}

function readRssMb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Math.round(Number(kb) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

const dispatcher = new Agent({ connections: 64, headersTimeout: 30_000, bodyTimeout: 30_000 });

async function send(base: string, input: FuzzRequest): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  try {
    const answer = await request(`${base}${input.path}`, {
      method: input.method,
      body: input.body,
      headers: { ...(input.body !== undefined && { 'content-type': 'application/json' }), ...input.headers },
      dispatcher,
    });
    const text = await answer.body.text();
    return { status: answer.statusCode, text, ms: performance.now() - started };
  } catch (err) {
    // A connection the server closed (a 413 with Connection: close) or a refused one: status 0, the reason as text.
    return { status: 0, text: String((err as Error).message), ms: performance.now() - started };
  }
}

/** Runs `tasks` with at most `concurrency` at once. */
async function pool<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await task(index);
      }
    }),
  );
  return results;
}

function auctionBody(bidders: string[], id: string): string {
  const ext = Object.fromEntries(bidders.map((bidder) => [bidder, {}]));
  return JSON.stringify({ id, tmax: TMAX, site: { page: 'https://publisher.example/' }, imp: [{ id: '1', banner: { format: [{ w: 300, h: 250 }] }, ext }] });
}

interface FaultRow {
  fault: string;
  auctions: number;
  statuses: Record<string, number>;
  maxMs: number;
  late: number;
  coded: number;
  healthyBids: number;
}

async function faultMatrix(gavel: Gavel, options: Options): Promise<FaultRow[]> {
  const rows: FaultRow[] = [];
  for (const fault of FAULTS) {
    const answers = await pool(options.faultAuctions, 8, (i) => send(gavel.url, { method: 'POST', path: '/openrtb2/auction', body: auctionBody(['healthy', fault.name], `${fault.name}-${i}`) }));
    const row: FaultRow = { fault: fault.name, auctions: answers.length, statuses: {}, maxMs: 0, late: 0, coded: 0, healthyBids: 0 };
    for (const answer of answers) {
      row.statuses[answer.status] = (row.statuses[answer.status] ?? 0) + 1;
      row.maxMs = Math.max(row.maxMs, Math.round(answer.ms));
      if (answer.ms > TMAX + LATE_MS) row.late++;
      let json: any;
      try {
        json = JSON.parse(answer.text);
      } catch {
        continue;
      }
      const error = json?.ext?.errors?.[fault.name]?.[0];
      if (!fault.coded || typeof error?.code === 'number') row.coded++;
      if (json?.seatbid?.some((seat: { seat: string }) => seat.seat === 'healthy')) row.healthyBids++;
    }
    rows.push(row);
    console.log(`fault ${fault.name.padEnd(9)} ${JSON.stringify(row)}`);
  }
  return rows;
}

interface FuzzRow {
  endpoint: string;
  requests: number;
  statuses: Record<string, number>;
  serverErrors: number;
  /** Requests that got a 5xx, to replay: the first few. */
  samples: FuzzRequest[];
}

async function fuzz(gavel: Gavel, options: Options): Promise<FuzzRow[]> {
  const rows: FuzzRow[] = [];
  for (const endpoint of Object.keys(FUZZ_ENDPOINTS)) {
    const inputs = fuzzRequests(endpoint, options.fuzz, options.seed);
    const answers = await pool(inputs.length, 16, (i) => send(gavel.url, inputs[i]!));
    const row: FuzzRow = { endpoint, requests: inputs.length, statuses: {}, serverErrors: 0, samples: [] };
    answers.forEach((answer, i) => {
      row.statuses[answer.status] = (row.statuses[answer.status] ?? 0) + 1;
      if (answer.status >= 500) {
        row.serverErrors++;
        if (row.samples.length < 5) row.samples.push({ ...inputs[i]!, body: inputs[i]!.body?.slice(0, 2000) });
      }
    });
    rows.push(row);
    console.log(`fuzz ${endpoint.padEnd(18)} ${row.requests} requests, statuses ${JSON.stringify(row.statuses)}`);
  }
  return rows;
}

interface SoakReport {
  seconds: number;
  rate: number;
  auctions: number;
  statuses: Record<string, number>;
  rssMb: number[];
  growthMb: number;
}

async function soak(gavel: Gavel, options: Options): Promise<SoakReport> {
  const report: SoakReport = { seconds: options.soakSeconds, rate: options.soakRate, auctions: 0, statuses: {}, rssMb: [], growthMb: 0 };
  const bodies = [auctionBody(['healthy'], 's'), auctionBody(['healthy', 'drip'], 's'), auctionBody(['healthy', 'hang', 'error500'], 's'), auctionBody(['healthy', 'garbage', 'negative'], 's')];
  const endAt = Date.now() + options.soakSeconds * 1000;
  const sampleEveryMs = Math.min(5000, Math.max(500, (options.soakSeconds * 1000) / 20));
  const sampler = setInterval(() => {
    const rss = gavel.rssMb();
    if (rss !== undefined) report.rssMb.push(rss);
  }, sampleEveryMs);
  const pending = new Set<Promise<void>>();
  const intervalMs = 1000 / options.soakRate;
  let due = Date.now();
  while (Date.now() < endAt && !gavel.crashed()) {
    const body = bodies[report.auctions % bodies.length]!;
    const sent = send(gavel.url, { method: 'POST', path: '/openrtb2/auction', body }).then((answer) => {
      report.statuses[answer.status] = (report.statuses[answer.status] ?? 0) + 1;
      pending.delete(sent);
    });
    pending.add(sent);
    report.auctions++;
    due += intervalMs;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  await Promise.all(pending);
  clearInterval(sampler);
  // Growth: the last quarter's median against the first quarter's (after the first sample, the warm-up).
  const samples = report.rssMb.slice(1);
  if (samples.length >= 4) {
    const quarter = Math.max(1, Math.floor(samples.length / 4));
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    report.growthMb = median(samples.slice(-quarter)) - median(samples.slice(0, quarter));
  }
  console.log(`soak ${report.auctions} auctions in ${report.seconds} s, statuses ${JSON.stringify(report.statuses)}, RSS MB ${report.rssMb.join(' ')}`);
  return report;
}

/** Starts the simulated bidder in its own process (scripts/chaos/bidder-process.ts). */
async function startBidder(): Promise<{ url: string; close: () => Promise<void> }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./bidder-process.js', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', () => reject(new Error(`the simulated bidder did not start: ${output}`)));
  });
  return {
    url,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const bidder = await startBidder();
  const gavel = await startServer(bidder.url);
  const report: Record<string, unknown> = { options: { ...options, skip: [...options.skip] }, startedAt: new Date().toISOString() };
  const problems: string[] = [];
  try {
    // Warm-up, every fault once or more: the first auctions pay for compilation and the first connections (the
    // first aborted call, the first reset...), which the fault matrix would otherwise charge to its first mode.
    await pool(48, 8, (i) => send(gavel.url, { method: 'POST', path: '/openrtb2/auction', body: auctionBody(['healthy', FAULTS[i % FAULTS.length]!.name], `warm-${i}`) }));
    if (!options.skip.has('fault')) {
      const faults = await faultMatrix(gavel, options);
      report.faults = faults;
      for (const row of faults) {
        if (row.statuses['200'] !== row.auctions) problems.push(`fault ${row.fault}: statuses ${JSON.stringify(row.statuses)}`);
        // Timing is a figure in a smoke run (CI machines are shared and loaded), a requirement in a full one.
        if (row.late > 0 && !options.smoke) problems.push(`fault ${row.fault}: ${row.late} answers later than tmax + ${LATE_MS} ms (max ${row.maxMs} ms)`);
        if (row.coded !== row.auctions) problems.push(`fault ${row.fault}: ${row.auctions - row.coded} answers without a coded error`);
      }
    }
    if (!options.skip.has('fuzz')) {
      const fuzzed = await fuzz(gavel, options);
      report.fuzz = fuzzed;
      for (const row of fuzzed) if (row.serverErrors > 0) problems.push(`fuzz ${row.endpoint}: ${row.serverErrors} answers of 5xx (samples in the report)`);
    }
    if (!options.skip.has('soak')) {
      const soaked = await soak(gavel, options);
      report.soak = soaked;
      const shed = Object.entries(soaked.statuses).filter(([status]) => Number(status) >= 500 || status === '0');
      if (shed.length > 0) problems.push(`soak: ${JSON.stringify(Object.fromEntries(shed))}`);
      if (soaked.growthMb > 50) problems.push(`soak: RSS grew ${soaked.growthMb} MB`);
    }
  } finally {
    report.crashed = gavel.crashed();
    if (gavel.crashed()) problems.push('gavel crashed');
    await gavel.stop();
    await bidder.close();
    await dispatcher.close();
  }
  report.problems = problems;
  if (options.out) writeFileSync(options.out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(problems.length === 0 ? 'chaos: no problem found' : `chaos: ${problems.length} problems\n  ${problems.join('\n  ')}`);
  process.exit(problems.length === 0 ? 0 : 1);
}

void main();
