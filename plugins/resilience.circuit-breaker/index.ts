import { defineModule, isJsonObject, readJsonBeside, SDK_VERSION, type BidderError, type HookResult, type BidderRequestPayload } from '../../core/api/index.js';
import { BREAKER_DEFAULTS, callFailed, CircuitBreaker, type BreakerSettings, type BreakerState } from './breaker.js';

export { CircuitBreaker, callFailed, BREAKER_DEFAULTS, type BreakerSettings, type BreakerState } from './breaker.js';

export interface CircuitBreakerConfig extends Partial<BreakerSettings> {
  bidders?: Record<string, Partial<BreakerSettings>>;
}

/**
 * The error a skipped bidder gets in `ext.errors.<bidder>`: Prebid Server's `BidderTemporarilyThrottledErrorCode`
 * (errortypes/code.go), the code it gives a bidder the server holds back for a while.
 */
export const CIRCUIT_OPEN_ERROR_CODE = 16;

/**
 * Breakers one bidder may have for accounts' own settings. Accounts are stored data, possibly many: past this, an
 * account with yet other settings is judged by the host's breaker (its auctions skip as the host's do).
 */
export const MAX_ACCOUNT_BREAKERS = 32;

const STATES: readonly BreakerState[] = ['closed', 'open', 'half-open'];
const INTEGER_KEYS = ['openingThreshold', 'openingIntervalMs', 'closingIntervalMs', 'halfOpenProbes'] as const;

/** An account's settings (`hooks.modules.resilience.circuit-breaker`), read tolerantly: a bad value is named and ignored. */
interface AccountBreakerConfig {
  settings: Partial<BreakerSettings>;
  bidders: Map<string, Partial<BreakerSettings>>;
  problems: string[];
}

const NO_ACCOUNT_CONFIG: AccountBreakerConfig = { settings: {}, bidders: new Map(), problems: [] };

function readSettings(raw: Record<string, unknown>, path: string, problems: string[]): Partial<BreakerSettings> {
  const settings: Partial<BreakerSettings> = {};
  if (raw.enabled !== undefined) {
    if (typeof raw.enabled === 'boolean') settings.enabled = raw.enabled;
    else problems.push(`${path}.enabled must be a boolean; ignored`);
  }
  for (const key of INTEGER_KEYS) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value === 'number' && Number.isInteger(value) && value >= 1) settings[key] = value;
    else problems.push(`${path}.${key} must be an integer of at least 1; ignored`);
  }
  return settings;
}

/** Read once per account object: the account cache hands the same object to every auction of the account. */
const accountConfigs = new WeakMap<object, AccountBreakerConfig>();

function accountConfigOf(raw: unknown): AccountBreakerConfig {
  if (!isJsonObject(raw)) return NO_ACCOUNT_CONFIG;
  let read = accountConfigs.get(raw);
  if (read) return read;
  const path = 'account hooks.modules.resilience.circuit-breaker';
  const problems: string[] = [];
  const bidders = new Map<string, Partial<BreakerSettings>>();
  if (isJsonObject(raw.bidders)) {
    for (const [name, settings] of Object.entries(raw.bidders)) {
      if (isJsonObject(settings)) bidders.set(name.toLowerCase(), readSettings(settings, `${path}.bidders.${name}`, problems));
      else problems.push(`${path}.bidders.${name} must be an object; ignored`);
    }
  } else if (raw.bidders !== undefined) problems.push(`${path}.bidders must be an object; ignored`);
  read = { settings: readSettings(raw, path, problems), bidders, problems };
  accountConfigs.set(raw, read);
  return read;
}

/** A key naming a set of effective settings: accounts that resolve to the same settings share a breaker. */
const keyOf = (settings: BreakerSettings): string =>
  settings.enabled ? `${settings.openingThreshold}/${settings.openingIntervalMs}/${settings.closingIntervalMs}/${settings.halfOpenProbes}` : 'off';

/** The breakers of one host bidder: the host's, and one per other set of settings accounts give it. */
interface BidderBreakers {
  host: CircuitBreaker | null;
  hostKey: string;
  accounts: Map<string, CircuitBreaker>;
}

/** Per-bidder circuit breakers: a bidder whose calls keep failing is skipped for a cool-down, then probed. */
export default defineModule<CircuitBreakerConfig>({
  code: 'resilience.circuit-breaker',
  version: '1.1.0',
  sdkVersion: SDK_VERSION,
  description: 'Skips a bidder for a cool-down after repeated failed calls (timeouts, network errors, 5xx), then probes it; accounts may set their own thresholds.',
  stages: ['bidder-request', 'raw-bidder-response'],
  configSchema: readJsonBeside(import.meta.url, './config.schema.json'),
  create(config, deps) {
    const { bidders: perBidder = {}, ...host } = config;
    const overrides = new Map(Object.entries(perBidder).map(([name, settings]) => [name.toLowerCase(), settings] as const));
    const bidderNames = [...deps.bidders.keys()];
    const skipped = deps.metrics?.counter({ name: 'gavel_circuit_breaker_skipped_total', help: 'Bidder calls skipped because the bidder\'s circuit breaker was open.', labels: { bidder: bidderNames } });
    const transitions = deps.metrics?.counter({
      name: 'gavel_circuit_breaker_transitions_total',
      help: 'Circuit breaker state changes, by bidder and the state entered.',
      labels: { bidder: bidderNames, state: STATES },
    });
    const openGauge = deps.metrics?.gauge({ name: 'gavel_circuit_breaker_open', help: 'Whether a bidder\'s circuit breaker is open or half-open (1) or closed (0).', labels: { bidder: bidderNames } });

    const hostSettingsOf = (adapter: string): BreakerSettings => ({ ...BREAKER_DEFAULTS, ...host, ...overrides.get(adapter) });

    // The breakers of each host bidder, made on its first call: the keys are the host's bidders, never request names.
    const breakers = new Map<string, BidderBreakers>();
    const breakersOf = (adapter: string): BidderBreakers => {
      let found = breakers.get(adapter);
      if (found !== undefined) return found;
      const settings = hostSettingsOf(adapter);
      // The metrics follow the host's breaker, the one every account without settings of its own is judged by.
      const hostBreaker = settings.enabled
        ? new CircuitBreaker(settings, (state) => {
            transitions?.inc({ bidder: adapter, state });
            openGauge?.set(state === 'closed' ? 0 : 1, { bidder: adapter });
            deps.logger.warn({ bidder: adapter, state }, `circuit breaker of ${adapter} is now ${state}`);
          })
        : null;
      found = { host: hostBreaker, hostKey: keyOf(settings), accounts: new Map() };
      breakers.set(adapter, found);
      return found;
    };

    /** The breaker an auction of this account is judged by for this bidder; null when it never skips the bidder. */
    const breakerFor = (adapter: string, accountConfig: unknown): { breaker: CircuitBreaker | null; problems: string[] } => {
      const own = breakersOf(adapter);
      const account = accountConfigOf(accountConfig);
      const bidderSettings = account.bidders.get(adapter);
      if (account === NO_ACCOUNT_CONFIG || (Object.keys(account.settings).length === 0 && bidderSettings === undefined)) return { breaker: own.host, problems: account.problems };
      const settings: BreakerSettings = { ...hostSettingsOf(adapter), ...account.settings, ...bidderSettings };
      const key = keyOf(settings);
      if (!settings.enabled) return { breaker: null, problems: account.problems };
      if (key === own.hostKey) return { breaker: own.host, problems: account.problems };
      let breaker = own.accounts.get(key);
      if (breaker === undefined) {
        if (own.accounts.size >= MAX_ACCOUNT_BREAKERS) return { breaker: own.host, problems: [...account.problems, `too many account settings for ${adapter}'s breaker: the host's settings apply`] };
        breaker = new CircuitBreaker(settings, (state) => deps.logger.warn({ bidder: adapter, state, settings: key }, `circuit breaker of ${adapter} for accounts with settings ${key} is now ${state}`));
        own.accounts.set(key, breaker);
      }
      return { breaker, problems: account.problems };
    };

    return {
      'bidder-request': {
        'skip-open': (payload, context): HookResult<BidderRequestPayload> | undefined => {
          const adapter = payload.adapter.toLowerCase();
          const { breaker, problems } = breakerFor(adapter, context.accountConfig);
          if (breaker === null) return problems.length > 0 ? { messages: problems } : undefined;
          const admission = breaker.admit(context.now());
          if (admission !== 'skip') {
            if (admission === 'probe') return { messages: [...problems, `half-open: ${payload.bidder} called as a probe`] };
            return problems.length > 0 ? { messages: problems } : undefined;
          }
          skipped?.inc({ bidder: adapter });
          const error: BidderError = {
            code: CIRCUIT_OPEN_ERROR_CODE,
            message: `${payload.bidder} skipped: its circuit breaker is open after repeated failed calls; the next probe goes at ${new Date(breaker.reopensAt).toISOString()}`,
          };
          return { action: 'reject', errors: { [payload.bidder]: [error] }, messages: [...problems, `circuit open for ${adapter}`] };
        },
      },
      'raw-bidder-response': {
        'count-failures': (payload, context) => {
          const adapter = (payload.adapter ?? payload.bidder).toLowerCase();
          const failed = callFailed(payload.exchanges);
          if (failed === undefined) return undefined;
          // Every call to the bidder, whichever account made it, is evidence of its host's health: each breaker of
          // the bidder records it.
          const own = breakersOf(adapter);
          const now = context.now();
          own.host?.record(failed, now);
          for (const breaker of own.accounts.values()) breaker.record(failed, now);
          return undefined;
        },
      },
    };
  },
});
