import { REJECTING_STAGES, type HookContext, type HookResult, type Stage, type StagePayloads } from '../api/index.js';
import type { HookTraceEntry, RequestContext } from '../context/request-context.js';
import { NoopMetrics, type Metrics } from '../metrics/index.js';
import type { PlannedGroup, PlannedHook, StagePlan } from './plan.js';

const NO_METRICS: Metrics = new NoopMetrics();

export interface StageOutcome<P> {
  payload: P;
  /** Set when a hook rejected at a stage that allows it. */
  rejection?: HookResult<P>;
}

type Settled<P> =
  | { status: 'success'; result: HookResult<P> | undefined; ms: number }
  | { status: 'timeout' | 'failure'; error: string; ms: number };

const now = (): number => performance.now();

/** Runs one hook; `timed` (only when the request asked for a trace) measures it, else `ms` is 0. */
function settleSync<P>(hook: PlannedHook, payload: P, context: HookContext, timed: boolean): Settled<P> | Promise<Settled<P>> {
  const started = timed ? now() : 0;
  let returned: ReturnType<PlannedHook['run']>;
  try {
    returned = hook.run(payload as never, context) as ReturnType<PlannedHook['run']>;
  } catch (err) {
    return { status: 'failure', error: (err as Error)?.message ?? String(err), ms: timed ? now() - started : 0 };
  }
  if (returned && typeof (returned as Promise<unknown>).then === 'function') {
    return (returned as Promise<HookResult<P> | undefined>).then(
      (result) => ({ status: 'success' as const, result, ms: timed ? now() - started : 0 }),
      (err: unknown) => ({ status: 'failure' as const, error: (err as Error)?.message ?? String(err), ms: timed ? now() - started : 0 }),
    );
  }
  return { status: 'success', result: returned as HookResult<P> | undefined, ms: timed ? now() - started : 0 };
}

/** A group's time box, never past the request's deadline once it is known (a late hook only delays the answer). */
function timeBox(group: PlannedGroup, context: RequestContext): number {
  if (context.deadline === 0) return group.timeoutMs;
  return Math.max(1, Math.min(group.timeoutMs, Math.floor(context.deadline - context.now())));
}

/** Waits for the asynchronous hooks of a group, but never past the group's time box. */
async function settleWithin<P>(pending: Array<Settled<P> | Promise<Settled<P>>>, timeoutMs: number): Promise<Settled<P>[]> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), timeoutMs);
  });
  const settled = pending.map((entry) =>
    entry instanceof Promise
      ? Promise.race([entry, expired]).then((value) => (value === 'expired' ? ({ status: 'timeout', error: `hook exceeded its ${timeoutMs} ms time box`, ms: timeoutMs } as Settled<P>) : value))
      : entry,
  );
  try {
    return await Promise.all(settled);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs one stage of an execution plan. Groups run in sequence; the hooks of a group run concurrently; their changes
 * are applied in plan order once the whole group has answered. A hook that throws or overruns its group's time box
 * is recorded and ignored; it never breaks the auction. When every hook of a stage answers synchronously, the stage
 * costs no timer and no promise.
 */
export function runStage<S extends Stage>(
  stage: S,
  plan: StagePlan,
  payload: StagePayloads[S],
  context: RequestContext,
  metrics: Metrics = NO_METRICS,
): StageOutcome<StagePayloads[S]> | Promise<StageOutcome<StagePayloads[S]>> {
  let current = payload;
  for (let index = 0; index < plan.length; index++) {
    const group = plan[index]!;
    const pending: Array<Settled<StagePayloads[S]> | Promise<Settled<StagePayloads[S]>>> = new Array(group.hooks.length);
    let anyAsync = false;
    for (let i = 0; i < group.hooks.length; i++) {
      const hook = group.hooks[i]!;
      const settled = settleSync<StagePayloads[S]>(hook, current, context.hookContext(hook.module), context.journal.trace !== undefined || context.observer !== undefined);
      if (settled instanceof Promise) anyAsync = true;
      pending[i] = settled;
    }
    if (anyAsync) {
      const before = current;
      return settleWithin(pending, timeBox(group, context)).then(async (settled) => {
        const outcome = applyGroup(stage, group, settled, before, context, metrics);
        if (outcome.rejection) return outcome;
        const rest = runStage(stage, plan.slice(index + 1), outcome.payload, context, metrics);
        return rest instanceof Promise ? await rest : rest;
      });
    }
    const outcome = applyGroup(stage, group, pending as Settled<StagePayloads[S]>[], current, context, metrics);
    if (outcome.rejection) return outcome;
    current = outcome.payload;
  }
  return { payload: current };
}

function applyGroup<P>(
  stage: Stage,
  group: PlannedGroup,
  settled: Settled<P>[],
  payload: P,
  context: RequestContext,
  metrics: Metrics,
): StageOutcome<P> {
  const { journal, logger, observer } = context;
  const at = observer ? context.now() : 0;
  let current = payload;
  let rejection: HookResult<P> | undefined;
  for (let i = 0; i < group.hooks.length; i++) {
    const hook = group.hooks[i]!;
    const outcome = settled[i]!;
    if (outcome.status !== 'success') {
      metrics.hookOutcome(stage, hook.module, outcome.status);
      logger.warn({ stage, module: hook.module, hook: hook.hook, status: outcome.status, error: outcome.error }, 'hook did not complete');
      journal.trace?.push({ stage, module: hook.module, hook: hook.hook, status: outcome.status, action: 'no-op', executiontimemillis: round(outcome.ms), message: outcome.error });
      observer?.hook({ stage, module: hook.module, hook: hook.hook, status: outcome.status, action: 'no-op', at, ms: round(outcome.ms) });
      continue;
    }
    const result = outcome.result;
    const wantsReject = result?.action === 'reject';
    const canReject = REJECTING_STAGES.has(stage);
    const status = wantsReject && canReject ? 'rejected' : 'success';
    metrics.hookOutcome(stage, hook.module, status);
    if (result?.warnings) mergeLists((journal.warnings ??= {}), result.warnings);
    if (result?.errors) mergeLists((journal.errors ??= {}), result.errors);
    if (wantsReject && canReject && !rejection) rejection = result;
    if (!wantsReject && result?.changes) {
      for (const change of result.changes) {
        try {
          const replaced = change(current);
          if (replaced !== undefined) current = replaced;
        } catch (err) {
          logger.warn({ stage, module: hook.module, hook: hook.hook, error: (err as Error).message }, 'hook change failed');
        }
      }
    }
    const action = wantsReject && canReject ? 'reject' : result?.changes?.length ? 'update' : 'no-op';
    observer?.hook({ stage, module: hook.module, hook: hook.hook, status, action, at, ms: round(outcome.ms) });
    if (journal.trace) {
      const entry: HookTraceEntry = {
        stage,
        module: hook.module,
        hook: hook.hook,
        status,
        action,
        executiontimemillis: round(outcome.ms),
      };
      if (wantsReject && !canReject) entry.message = `stage ${stage} cannot reject; the reject was ignored`;
      if (journal.traceLevel === 'verbose' && result?.messages) entry.messages = result.messages;
      journal.trace.push(entry);
    }
  }
  if (rejection) return { payload: current, rejection };
  return { payload: current };
}

function mergeLists<T>(target: Record<string, T[]>, source: Record<string, T[]>): void {
  for (const [key, list] of Object.entries(source)) (target[key] ??= []).push(...list);
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
