import type { BidderExchange } from '../../core/api/index.js';

export interface BreakerSettings {
  enabled: boolean;
  openingThreshold: number;
  openingIntervalMs: number;
  closingIntervalMs: number;
  halfOpenProbes: number;
}

export const BREAKER_DEFAULTS: BreakerSettings = {
  enabled: true,
  openingThreshold: 5,
  openingIntervalMs: 60_000,
  closingIntervalMs: 30_000,
  halfOpenProbes: 1,
};

export type BreakerState = 'closed' | 'open' | 'half-open';

/** What a breaker says about one call about to be made. */
export type Admission = 'call' | 'probe' | 'skip';

/**
 * One bidder's circuit breaker, as Prebid Server Java's (Vert.x) behaves: closed, it counts failed calls in a
 * sliding window and opens at `openingThreshold`; open, it skips every call for `closingIntervalMs`; then half-open,
 * it lets `halfOpenProbes` calls through: a probe that succeeds closes it (the count starts again), one that fails
 * opens it for another cool-down. A probe whose outcome never comes (another module rejected the call) frees its
 * slot after `closingIntervalMs`.
 */
export class CircuitBreaker {
  state: BreakerState = 'closed';
  /** When the recent failures happened (closed state), oldest first; at most `openingThreshold` kept. */
  private failures: number[] = [];
  private openedAt = 0;
  private probes: number[] = [];

  constructor(readonly settings: BreakerSettings, private readonly onChange: (state: BreakerState) => void) {}

  /** Whether the call may go (and whether it is a probe), at `now`. */
  admit(now: number): Admission {
    if (this.state === 'closed') return 'call';
    if (this.state === 'open') {
      if (now - this.openedAt < this.settings.closingIntervalMs) return 'skip';
      this.moveTo('half-open');
      this.probes = [];
    }
    this.probes = this.probes.filter((startedAt) => now - startedAt < this.settings.closingIntervalMs);
    if (this.probes.length >= this.settings.halfOpenProbes) return 'skip';
    this.probes.push(now);
    return 'probe';
  }

  /** Records a finished call. */
  record(failed: boolean, now: number): void {
    if (this.state === 'half-open') {
      if (failed) this.open(now);
      else {
        this.failures = [];
        this.moveTo('closed');
      }
      return;
    }
    if (this.state === 'open' || !failed) return;
    const { openingThreshold, openingIntervalMs } = this.settings;
    this.failures.push(now);
    while (this.failures.length > 0 && now - this.failures[0]! >= openingIntervalMs) this.failures.shift();
    if (this.failures.length > openingThreshold) this.failures.shift();
    if (this.failures.length >= openingThreshold) this.open(now);
  }

  /** When an open breaker lets its next probe through (epoch ms). */
  get reopensAt(): number {
    return this.openedAt + this.settings.closingIntervalMs;
  }

  private open(now: number): void {
    this.openedAt = now;
    this.failures = [];
    this.moveTo('open');
  }

  private moveTo(state: BreakerState): void {
    if (this.state === state) return;
    this.state = state;
    this.onChange(state);
  }
}

/**
 * A call failed when none of its HTTP exchanges got a usable answer: every one timed out, failed on the network, or
 * got a 5xx. A call with no exchange (the adapter made none) says nothing about the bidder's server.
 */
export function callFailed(exchanges: readonly BidderExchange[] | undefined): boolean | undefined {
  if (!exchanges || exchanges.length === 0) return undefined;
  return exchanges.every((exchange) => exchange.failure === 'timeout' || exchange.failure === 'network' || (exchange.status !== undefined && exchange.status >= 500));
}
