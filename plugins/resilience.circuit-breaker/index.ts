import { defineModule, readJsonBeside, SDK_VERSION, type BidderError, type HookResult, type BidderRequestPayload } from '../../core/api/index.js';
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

const STATES: readonly BreakerState[] = ['closed', 'open', 'half-open'];

/** Per-bidder circuit breakers: a bidder whose calls keep failing is skipped for a cool-down, then probed. */
export default defineModule<CircuitBreakerConfig>({
  code: 'resilience.circuit-breaker',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  description: 'Skips a bidder for a cool-down after repeated failed calls (timeouts, network errors, 5xx), then probes it.',
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

    // One breaker per host bidder, made on its first call: the keys are the host's bidders, never request names.
    const breakers = new Map<string, CircuitBreaker | null>();
    const breakerOf = (adapter: string): CircuitBreaker | null => {
      let breaker = breakers.get(adapter);
      if (breaker !== undefined) return breaker;
      const settings: BreakerSettings = { ...BREAKER_DEFAULTS, ...host, ...overrides.get(adapter) };
      breaker = settings.enabled
        ? new CircuitBreaker(settings, (state) => {
            transitions?.inc({ bidder: adapter, state });
            openGauge?.set(state === 'closed' ? 0 : 1, { bidder: adapter });
            deps.logger.warn({ bidder: adapter, state }, `circuit breaker of ${adapter} is now ${state}`);
          })
        : null;
      breakers.set(adapter, breaker);
      return breaker;
    };

    return {
      'bidder-request': {
        'skip-open': (payload, context): HookResult<BidderRequestPayload> | undefined => {
          const adapter = payload.adapter.toLowerCase();
          const breaker = breakerOf(adapter);
          if (breaker === null) return undefined;
          const admission = breaker.admit(context.now());
          if (admission !== 'skip') {
            if (admission === 'probe') return { messages: [`half-open: ${payload.bidder} called as a probe`] };
            return undefined;
          }
          skipped?.inc({ bidder: adapter });
          const error: BidderError = {
            code: CIRCUIT_OPEN_ERROR_CODE,
            message: `${payload.bidder} skipped: its circuit breaker is open after repeated failed calls; the next probe goes at ${new Date(breaker.reopensAt).toISOString()}`,
          };
          return { action: 'reject', errors: { [payload.bidder]: [error] }, messages: [`circuit open for ${adapter}`] };
        },
      },
      'raw-bidder-response': {
        'count-failures': (payload, context) => {
          const adapter = (payload.adapter ?? payload.bidder).toLowerCase();
          const breaker = breakerOf(adapter);
          const failed = callFailed(payload.exchanges);
          if (breaker !== null && failed !== undefined) breaker.record(failed, context.now());
          return undefined;
        },
      },
    };
  },
});
