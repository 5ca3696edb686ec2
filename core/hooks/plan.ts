import { ErrorCode, GavelError, STAGES, type EndpointName, type Hook, type PluginLogger, type Stage } from '../api/index.js';
import type { ExecutionPlanConfig, HookGroupConfig } from '../config/index.js';

/** A hook ready to run: resolved once (at boot, or when an account's plan is first used), referenced by requests. */
export interface PlannedHook {
  module: string;
  /** The hook's name in the plan (Prebid Server's `hook_impl_code`). */
  hook: string;
  run: Hook;
}
export interface PlannedGroup { timeoutMs: number; hooks: PlannedHook[] }
export type StagePlan = PlannedGroup[];
export type EndpointPlan = Readonly<Record<Stage, StagePlan>>;

/** Hooks made available by the enabled modules: module code -> stage -> hook name -> function. */
export type AvailableHooks = ReadonlyMap<string, Partial<Record<Stage, Record<string, Hook>>>>;

/** The endpoint paths execution plans are keyed by, as in Prebid Server's plans. */
const PLAN_ENDPOINTS: Readonly<Record<EndpointName, '/openrtb2/auction' | '/openrtb2/amp' | '/openrtb2/video'>> = {
  auction: '/openrtb2/auction',
  amp: '/openrtb2/amp',
  video: '/openrtb2/video',
};

const ENDPOINTS = Object.keys(PLAN_ENDPOINTS) as EndpointName[];

/** The groups a plan gives one stage of one endpoint; Prebid Server spells stages with `_`, Gavel with `-`. */
function groupsOf(plan: ExecutionPlanConfig | undefined, endpoint: EndpointName, stage: Stage): HookGroupConfig[] | undefined {
  const stages = plan?.endpoints?.[PLAN_ENDPOINTS[endpoint]]?.stages;
  return stages?.[stage]?.groups ?? stages?.[stage.replaceAll('-', '_')]?.groups;
}

/**
 * Execution plans: which module hooks run at each stage of each endpoint, in which groups. A request runs the host's
 * plan, then its account's plan (or the host's default account plan), as Prebid Server does. A stage that no plan
 * names runs every enabled module's hooks for it, one group per module, in module order. Host plans are resolved at
 * boot, where any unknown module or hook is an error; an account's plan is resolved the first time it is used, and
 * an unknown hook in it is logged and skipped (an account cannot stop the server).
 */
export class ExecutionPlanner {
  /** Plans of requests whose account has no plan of its own: the host's, then the default account plan. */
  private readonly defaultPlans: Record<EndpointName, EndpointPlan>;
  private readonly accountPlans = new WeakMap<ExecutionPlanConfig, Record<EndpointName, EndpointPlan>>();

  constructor(
    private readonly available: AvailableHooks,
    private readonly settings: { defaultGroupTimeoutMs: number; hostExecutionPlan?: ExecutionPlanConfig; defaultAccountExecutionPlan?: ExecutionPlanConfig },
    private readonly logger: PluginLogger,
  ) {
    this.defaultPlans = this.compile(settings.defaultAccountExecutionPlan, 'hooks.defaultAccountExecutionPlan', (message) => {
      throw new GavelError(ErrorCode.HookUnknown, message);
    });
  }

  /** The plan of an endpoint for a request whose account brings `accountPlan` (Prebid Server's `hooks.execution_plan`). */
  planFor(endpoint: EndpointName, accountPlan?: ExecutionPlanConfig): EndpointPlan {
    if (!accountPlan?.endpoints) return this.defaultPlans[endpoint];
    let plans = this.accountPlans.get(accountPlan);
    if (!plans) {
      plans = this.compile(accountPlan, 'account hooks.execution_plan', (message) => this.logger.warn({ plan: 'account' }, `${message}; skipped`));
      this.accountPlans.set(accountPlan, plans);
    }
    return plans[endpoint];
  }


  private compile(accountPlan: ExecutionPlanConfig | undefined, source: string, unknown: (message: string) => void): Record<EndpointName, EndpointPlan> {
    const host = this.settings.hostExecutionPlan;
    const compiled = {} as Record<EndpointName, EndpointPlan>;
    for (const endpoint of ENDPOINTS) {
      const plan = {} as Record<Stage, StagePlan>;
      for (const stage of STAGES) {
        const hostGroups = groupsOf(host, endpoint, stage);
        const accountGroups = groupsOf(accountPlan, endpoint, stage);
        if (hostGroups === undefined && accountGroups === undefined) {
          plan[stage] = this.everyModule(stage);
          continue;
        }
        plan[stage] = [
          ...this.resolveGroups(hostGroups, 'hooks.hostExecutionPlan', endpoint, stage, (message) => {
            throw new GavelError(ErrorCode.HookUnknown, message);
          }),
          ...this.resolveGroups(accountGroups, source, endpoint, stage, unknown),
        ];
      }
      compiled[endpoint] = plan;
    }
    return compiled;
  }

  private resolveGroups(groups: HookGroupConfig[] | undefined, source: string, endpoint: EndpointName, stage: Stage, unknown: (message: string) => void): PlannedGroup[] {
    const resolved: PlannedGroup[] = [];
    for (const group of groups ?? []) {
      const hooks: PlannedHook[] = [];
      for (const { module_code: module, hook_impl_code: hook } of group.hook_sequence) {
        const where = `${source} (${PLAN_ENDPOINTS[endpoint]}, stage ${stage})`;
        const stages = this.available.get(module);
        if (!stages) {
          unknown(`${where} names module "${module}", which is not enabled or not installed`);
          continue;
        }
        const run = resolveHook(stages[stage], hook);
        if (!run) {
          unknown(`${where} names hook "${module}.${hook}", which module "${module}" does not provide at stage ${stage}`);
          continue;
        }
        hooks.push({ module, hook, run });
      }
      if (hooks.length > 0) resolved.push({ timeoutMs: group.timeout ?? this.settings.defaultGroupTimeoutMs, hooks });
    }
    return resolved;
  }

  private everyModule(stage: Stage): PlannedGroup[] {
    const groups: PlannedGroup[] = [];
    for (const [module, stages] of this.available) {
      const hooks = Object.entries(stages[stage] ?? {}).map(([hook, run]) => ({ module, hook, run: run as Hook }));
      if (hooks.length > 0) groups.push({ timeoutMs: this.settings.defaultGroupTimeoutMs, hooks });
    }
    return groups;
  }
}

/**
 * A hook by its name; Prebid Server's modules have one hook per stage and its plans give that hook any label, so a
 * module with a single hook at the stage answers to any name.
 */
function resolveHook(hooks: Record<string, Hook> | undefined, name: string): Hook | undefined {
  if (!hooks) return undefined;
  if (Object.hasOwn(hooks, name)) return hooks[name];
  const only = Object.values(hooks);
  return only.length === 1 ? only[0] : undefined;
}
