import { ErrorCode, GavelError, STAGES, type EndpointName, type Hook, type Stage } from '../api/index.js';
import type { GavelConfig, HookGroupConfig } from '../config/index.js';

/** A hook ready to run: resolved once at boot, referenced by every request. */
export interface PlannedHook {
  module: string;
  hook: string;
  run: Hook;
  /** Built-in hooks are trusted to be synchronous and fast; they carry no time box of their own. */
  builtIn: boolean;
}
export interface PlannedGroup { timeoutMs: number; hooks: PlannedHook[] }
export type StagePlan = PlannedGroup[];
export type EndpointPlan = Record<Stage, StagePlan>;
export type ExecutionPlans = Record<EndpointName, EndpointPlan>;

/** Hooks made available by the enabled modules: module code -> stage -> hook name -> function. */
export type AvailableHooks = Map<string, { builtIn: boolean; hooks: Partial<Record<Stage, Record<string, Hook>>> }>;

const ENDPOINTS: EndpointName[] = ['auction', 'amp', 'video'];

/**
 * Builds the execution plan of every endpoint. A stage the host lists in `hooks.plans.<endpoint>` runs exactly the
 * groups given there; any other stage runs every enabled module's hooks for it, built-ins first, one group per module.
 */
export function buildExecutionPlans(config: GavelConfig, available: AvailableHooks): ExecutionPlans {
  const resolve = (endpoint: EndpointName, stage: Stage, group: HookGroupConfig): PlannedGroup => ({
    timeoutMs: group.timeoutMs ?? config.hooks.defaultGroupTimeoutMs,
    hooks: group.hooks.map(({ module, hook }) => {
      const entry = available.get(module);
      if (!entry) {
        throw new GavelError(ErrorCode.HookUnknown, `hooks.plans.${endpoint}.${stage} names module "${module}", which is not enabled or not installed`);
      }
      const run = entry.hooks[stage]?.[hook];
      if (!run) {
        throw new GavelError(ErrorCode.HookUnknown, `hooks.plans.${endpoint}.${stage} names hook "${module}.${hook}", which module "${module}" does not provide at stage ${stage}`);
      }
      return { module, hook, run, builtIn: entry.builtIn };
    }),
  });

  const defaultGroups = (stage: Stage): PlannedGroup[] => {
    const ordered = [...available.entries()].sort(([, a], [, b]) => Number(b.builtIn) - Number(a.builtIn));
    const groups: PlannedGroup[] = [];
    for (const [module, entry] of ordered) {
      const hooks = Object.entries(entry.hooks[stage] ?? {}).map(([hook, run]) => ({ module, hook, run: run as Hook, builtIn: entry.builtIn }));
      if (hooks.length > 0) groups.push({ timeoutMs: config.hooks.defaultGroupTimeoutMs, hooks });
    }
    return groups;
  };

  const plans = {} as ExecutionPlans;
  for (const endpoint of ENDPOINTS) {
    const configured = config.hooks.plans[endpoint] ?? {};
    const plan = {} as EndpointPlan;
    for (const stage of STAGES) {
      const groups = configured[stage];
      plan[stage] = groups ? groups.map((group) => resolve(endpoint, stage, group)) : defaultGroups(stage);
    }
    plans[endpoint] = plan;
  }
  return plans;
}
