import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import type { LoadResult } from './load.js';
import { isEntryPoint } from './processes.js';

/**
 * The fallback load generator when wrk is not installed: a fixed number of keep-alive connections, each POSTing the
 * body again as soon as the previous answer is in (closed loop, like wrk), for a fixed time. Prints one JSON line.
 * Usage: node load-generator.js URL BODY_FILE CONNECTIONS DURATION_MS
 */

/** Nearest-rank percentile of ascending values. */
export function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

export async function generateLoad(url: string, body: string, connections: number, durationMs: number): Promise<LoadResult> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections, pipelining: 1 });
  const latenciesMs: number[] = [];
  let non200 = 0;
  let errors = 0;
  const started = performance.now();
  const stopAt = started + durationMs;

  async function keepOneConnectionBusy(): Promise<void> {
    while (performance.now() < stopAt) {
      const sent = performance.now();
      try {
        const response = await pool.request({ path: target.pathname, method: 'POST', body, headers: { 'content-type': 'application/json' } });
        await response.body.dump();
        latenciesMs.push(performance.now() - sent);
        if (response.statusCode !== 200) non200++;
      } catch {
        errors++;
      }
    }
  }

  await Promise.all(Array.from({ length: connections }, keepOneConnectionBusy));
  const durationS = (performance.now() - started) / 1000;
  await pool.close();
  const sorted = Float64Array.from(latenciesMs).sort();
  return {
    tool: 'node',
    requests: latenciesMs.length,
    durationS,
    rps: latenciesMs.length / durationS,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    non200,
    errors,
  };
}

if (isEntryPoint(import.meta.url)) {
  const [url, bodyFile, connections, durationMs] = process.argv.slice(2);
  if (!url || !bodyFile) {
    console.error('usage: node load-generator.js URL BODY_FILE CONNECTIONS DURATION_MS');
    process.exit(2);
  }
  const result = await generateLoad(url, readFileSync(bodyFile, 'utf8'), Number(connections ?? 32), Number(durationMs ?? 10000));
  console.log(JSON.stringify(result));
}
