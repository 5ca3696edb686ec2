import type { AccountSettings, PrivacyActivity } from '../api/index.js';
import type { ActivityConfig } from '../config/schema.js';

/** What a host or account controls with `privacy.allowactivities` (Prebid Server's `privacy.Activity`). */
export type Activity = PrivacyActivity;

/** Who asks: a bidder, an analytics adapter, a real-time-data module, or the service itself. */
export interface Component {
  type: 'bidder' | 'analytics' | 'rtd' | 'general' | 'userid';
  name: string;
}

/** What a rule's condition may read of the request beyond the component: GPP section ids and the user's region. */
export interface ActivityFacts {
  gppSids: readonly number[];
  /** `COUNTRY` and `COUNTRY.REGION` (alpha-3 country as `device.geo` gives it, region as given), upper case. */
  geo: readonly string[];
}

interface Rule {
  allow: boolean;
  names?: readonly string[];
  types?: readonly string[];
  gppSids?: readonly number[];
  geo?: readonly string[];
}

interface Plan {
  allowByDefault: boolean;
  rules: readonly Rule[];
}

/** Prebid Server names transmitTids `transmitTid`; both spellings are read. */
const ALIASES: Readonly<Record<string, Activity>> = { transmitTid: 'transmitTids' };

/**
 * Activity controls, as Prebid Server's `privacy/activitycontrol.go` evaluates them: per activity, the first rule
 * whose condition matches decides (`allow`), else the activity's `default`, else allowed. A condition matches when
 * each clause it has matches: `componentType` and `componentName` (any, ignoring case), `gppSid` (any of the
 * request's `regs.gpp_sid`), `geo` (`USA` or `USA.CA`, any). An account's rules for an activity replace the host's.
 * Built once per host and account.
 */
export class ActivityControl {
  private constructor(private readonly plans: ReadonlyMap<Activity, Plan>) {}

  static readonly ALLOW_ALL = new ActivityControl(new Map());

  static from(host: Record<string, ActivityConfig> | undefined, account: AccountSettings['privacy']): ActivityControl {
    const accountRules = account?.allowactivities as Record<string, ActivityConfig> | undefined;
    if (!host && !accountRules) return ActivityControl.ALLOW_ALL;
    const plans = new Map<Activity, Plan>();
    for (const source of [host, accountRules]) {
      if (!source) continue;
      for (const [name, config] of Object.entries(source)) plans.set(ALIASES[name] ?? (name as Activity), planOf(config));
    }
    return new ActivityControl(plans);
  }

  get empty(): boolean {
    return this.plans.size === 0;
  }

  allows(activity: Activity, component: Component, facts: ActivityFacts): boolean {
    const plan = this.plans.get(activity);
    if (!plan) return true;
    for (const rule of plan.rules) {
      if (matches(rule, component, facts)) return rule.allow;
    }
    return plan.allowByDefault;
  }
}

function planOf(config: ActivityConfig): Plan {
  const rules: Rule[] = [];
  for (const raw of config.rules ?? []) {
    const condition = raw.condition ?? {};
    rules.push({
      allow: raw.allow === true,
      names: nonEmpty(condition.componentName?.map((name) => name.toLowerCase())),
      types: nonEmpty(condition.componentType?.map((type) => type.toLowerCase())),
      gppSids: nonEmpty(condition.gppSid),
      geo: nonEmpty(condition.geo?.map((geo) => geo.toUpperCase())),
    });
  }
  return { allowByDefault: config.default ?? true, rules };
}

function nonEmpty<T>(list: T[] | undefined): T[] | undefined {
  return list && list.length > 0 ? list : undefined;
}

function matches(rule: Rule, component: Component, facts: ActivityFacts): boolean {
  if (rule.names && !rule.names.includes(component.name.toLowerCase())) return false;
  if (rule.types && !rule.types.includes(component.type)) return false;
  if (rule.gppSids && !rule.gppSids.some((sid) => facts.gppSids.includes(sid))) return false;
  if (rule.geo && !rule.geo.some((geo) => facts.geo.includes(geo))) return false;
  return true;
}
