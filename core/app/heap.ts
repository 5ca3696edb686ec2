import v8 from 'node:v8';

/**
 * How a Gavel process sizes V8's heap (docs/performance.md, "Memory"). Under load with V8's defaults a worker's heap
 * is mostly room, not data: about 30 MB survives a full collection, yet the young generation grows to two 16 MB
 * semi-spaces and the old generation to about 80 MB before its next full collection, because V8 lets it grow up to
 * four times what survived. These two settings keep that room in proportion without costing CPU: measured side by
 * side under the benchmark's load, a half-size young generation used as much CPU per auction or less (its
 * allocations stay warmer in the caches) and a quarter-size one 4-8% more.
 */

/** Two semi-spaces of 8 MB each (V8's default on 64-bit is 16). V8 reads it only at start: a node flag. */
export const SEMI_SPACE_FLAG = '--max-semi-space-size=8';

/** After a full collection, the old generation may grow by this share of what survived before the next one. */
export const HEAP_GROWING_PERCENT = 20;

/**
 * The node flags a Gavel server starts with: `npm start`, the `gavel` command (its shebang), the cluster's workers
 * and the benchmark all pass these. A test holds the first two to this list. The growth bound is also set at run
 * time when the process started without it (limitHeapGrowth), but from the start it holds boot's garbage too (peak
 * RSS 152 MB under the bare 3-bidder load against 166 when set at run time, and 204 without it).
 */
export const NODE_FLAGS: readonly string[] = [SEMI_SPACE_FLAG, `--heap-growing-percent=${HEAP_GROWING_PERCENT}`];

/** The flag's name, spelt with dashes (V8 takes `_` and `-` alike). */
function flagName(arg: string): string {
  return arg.split('=')[0]!.replace(/_/g, '-');
}

/** Whether the process was started with this V8 flag, on the command line or in NODE_OPTIONS. */
function startedWith(name: string, execArgv: readonly string[], nodeOptions: string): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => flagName(arg) === name);
}

/** The worker's `execArgv`: the parent's, plus each of NODE_FLAGS the host did not set its own way. */
export function workerExecArgv(execArgv: readonly string[], nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const missing = NODE_FLAGS.filter((flag) => !startedWith(flagName(flag), execArgv, nodeOptions));
  return [...execArgv, ...missing];
}

/**
 * The V8 flag that bounds the old generation's growth, or undefined when the host set `--heap-growing-percent`
 * itself. V8 reads it at every full collection, so it can be set while the process runs.
 */
export function heapGrowthFlag(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string | undefined {
  return startedWith('--heap-growing-percent', execArgv, nodeOptions) ? undefined : `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Bounds the old generation's growth in this process (before boot, so boot's own garbage is held to it too). */
export function limitHeapGrowth(): void {
  const flag = heapGrowthFlag();
  if (flag) v8.setFlagsFromString(flag);
}
