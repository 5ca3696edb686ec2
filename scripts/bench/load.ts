import { BenchFailure, pinnedCommand, runCommand } from './processes.js';

/** What one load run measured, whichever tool produced it. */
export interface LoadResult {
  tool: LoadTool;
  requests: number;
  durationS: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers with any other status than 200 (wrk can only tell non-2xx/3xx). */
  non200: number;
  /** Connection errors and timeouts. */
  errors: number;
}

/** `wrk` with ../shared/bench/post.lua when installed, else the undici load generator in load-generator.ts. */
export type LoadTool = 'wrk' | 'node';

export interface LoadPlan {
  tool: LoadTool;
  url: string;
  bodyFile: string;
  connections: number;
  durationS: number;
  /** CPUs to pin the load generator to (taskset -c), if pinning. */
  cpus?: string;
  postLua: string;
  loadGeneratorScript: string;
}

const MS_PER_UNIT: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function toMs(value: string, unit: string): number {
  return Number(value) * MS_PER_UNIT[unit]!;
}

/** Reads wrk's `--latency` report. */
export function parseWrkOutput(output: string): Omit<LoadResult, 'tool'> {
  const percentile = (p: number) => {
    const match = output.match(new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m|h)\\s*$`, 'm'));
    if (!match) throw new BenchFailure(`wrk reported no ${p}th percentile:\n${output}`);
    return toMs(match[1]!, match[2]!);
  };
  const total = output.match(/(\d+) requests in ([\d.]+)(us|ms|s|m|h)/);
  if (!total) throw new BenchFailure(`wrk reported no request count:\n${output}`);
  const requests = Number(total[1]);
  const durationS = toMs(total[2]!, total[3]!) / 1000;
  const non200 = Number(output.match(/Non-2xx or 3xx responses:\s+(\d+)/)?.[1] ?? 0);
  const socketErrors = output.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  const errors = socketErrors ? socketErrors.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0;
  return { requests, durationS, rps: requests / durationS, p50Ms: percentile(50), p99Ms: percentile(99), non200, errors };
}

export async function runLoad(plan: LoadPlan): Promise<LoadResult> {
  if (plan.tool === 'wrk') {
    const wrkArgs = ['-t1', `-c${plan.connections}`, `-d${plan.durationS}s`, '-s', plan.postLua, '--latency', plan.url];
    const [command, args] = pinnedCommand(plan.cpus, 'wrk', wrkArgs);
    const run = await runCommand(command, args, { ...process.env, BODY_FILE: plan.bodyFile });
    if (run.code !== 0) throw new BenchFailure(`wrk failed (${run.code}): ${run.stderr || run.stdout}`);
    return { tool: 'wrk', ...parseWrkOutput(run.stdout) };
  }
  const generatorArgs = [plan.loadGeneratorScript, plan.url, plan.bodyFile, String(plan.connections), String(plan.durationS * 1000)];
  const [command, args] = pinnedCommand(plan.cpus, process.execPath, generatorArgs);
  const run = await runCommand(command, args);
  if (run.code !== 0) throw new BenchFailure(`the load generator failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as LoadResult;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Several rounds of one server as one result: counts add up, rates and latencies are the rounds' medians. */
export function combineRounds(rounds: LoadResult[]): LoadResult {
  return {
    tool: rounds[0]!.tool,
    requests: rounds.reduce((sum, round) => sum + round.requests, 0),
    durationS: rounds.reduce((sum, round) => sum + round.durationS, 0),
    rps: median(rounds.map((round) => round.rps)),
    p50Ms: median(rounds.map((round) => round.p50Ms)),
    p99Ms: median(rounds.map((round) => round.p99Ms)),
    non200: rounds.reduce((sum, round) => sum + round.non200, 0),
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
  };
}
