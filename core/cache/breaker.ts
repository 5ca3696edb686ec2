export interface CircuitBreakerOptions {
  /** Failures in a row that open the breaker. */
  failures: number;
  /** Told when the breaker opens (false) and closes again (true). */
  onChange?(closed: boolean): void;
}

/**
 * A circuit breaker: after `failures` failed calls in a row the backend is skipped outright, so calls cost nothing
 * while it is down. No call is let through to find out whether it is back (that call's auction would wait): the
 * backend's health check closes the breaker (`reset`) when it answers, and opens it (`trip`) when it does not.
 */
export class CircuitBreaker {
  private failuresInARow = 0;
  private opened = false;

  constructor(private readonly options: CircuitBreakerOptions) {}

  get open(): boolean {
    return this.opened;
  }

  /** True when a call may go out now. */
  allow(): boolean {
    return !this.opened;
  }

  success(): void {
    this.failuresInARow = 0;
  }

  failure(): void {
    if (++this.failuresInARow >= this.options.failures) this.trip();
  }

  /** Opens the breaker now (the backend's health check failed, or too many calls did). */
  trip(): void {
    if (this.opened) return;
    this.opened = true;
    this.options.onChange?.(false);
  }

  /** Closes it (the health check answered). */
  reset(): void {
    this.failuresInARow = 0;
    if (!this.opened) return;
    this.opened = false;
    this.options.onChange?.(true);
  }
}
