import v8 from 'node:v8';

/**
 * The node flags a Gavel server runs with (docs/performance.md, "Memory" and the seventh round). Each was measured
 * side by side with V8's default, both servers on one core and loaded at once, under the benchmark's load.
 *
 * With V8's defaults a worker's heap is mostly room, not data: about 30 MB survives a full collection, yet the young
 * generation grows to two 16 MB semi-spaces and the old generation to about 80 MB between full collections (V8 lets
 * it grow up to four times what survived when collecting looks cheap). Half-size semi-spaces used 2-5% less CPU per
 * auction under the bare load (their allocations stay warmer in the caches) and as much under the production load;
 * quarter-size ones 4-8% more. The growth bound cost nothing measurable. Together: peak RSS 204 -> 153 MB.
 *
 * TurboFan inlines callees into a function until their bytecode adds up to a budget (920 bytes by default). The
 * auction's functions exhaust it: at twice the budget the auction used 3-8% less CPU per auction (bare and
 * production, 3 and 5 bidders); at four times, no less than at twice.
 */

/** Two semi-spaces of 8 MB each (V8's default on 64-bit is 16). V8 reads it only at start. */
export const SEMI_SPACE_FLAG = '--max-semi-space-size=8';

/** After a full collection, the old generation may grow by this share of what survived before the next one. */
export const HEAP_GROWING_PERCENT = 20;

/** Bytecode TurboFan may inline into one function, in all (twice V8's default). */
export const INLINING_BUDGET_BYTES = 1840;

/** The flags V8 reads again whenever it uses them: set at run time when the process started without them. */
const RUNTIME_FLAGS: readonly string[] = [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, `--max-inlined-bytecode-size-cumulative=${INLINING_BUDGET_BYTES}`];

/**
 * The node flags a Gavel server starts with: `npm start`, the `gavel` command (its shebang), the cluster's workers
 * and the benchmark all pass these; a test holds the first two to this list. Started from the beginning, the growth
 * bound also holds boot's garbage (peak RSS 152 MB under the bare 3-bidder load against 166 when set at run time).
 */
export const NODE_FLAGS: readonly string[] = [SEMI_SPACE_FLAG, ...RUNTIME_FLAGS];

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

/** The run-time settable flags this process started without; a flag the host set its own way is left out. */
export function missingRuntimeFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  return RUNTIME_FLAGS.filter((flag) => !startedWith(flagName(flag), execArgv, nodeOptions));
}

/** Sets the flags V8 can take while running that this process started without (before boot, so boot runs under them). */
export function applyRuntimeFlags(): void {
  for (const flag of missingRuntimeFlags()) v8.setFlagsFromString(flag);
}
