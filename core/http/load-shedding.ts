import { ErrorCode } from '../api/index.js';
import { HttpError } from './body.js';

export interface LoadSheddingSettings {
  /** Auctions answered at once past this many in flight; 0 switches the check off. */
  maxAuctionsInFlight: number;
  /** Auctions answered at once while the event loop's delay (the worst over the last second) is above this; 0 switches it off. */
  maxEventLoopDelayMs: number;
  /** What the 503's Retry-After says. */
  retryAfterSeconds: number;
}

/** How often the event loop's delay is measured. */
const LAG_TICK_MS = 100;
/** How long the worst delay seen is remembered. */
const LAG_HOLD_MS = 1000;

/**
 * Load shedding for the auction endpoints: past a number of auctions in flight, or while the event loop lags, a
 * request is answered 503 with Retry-After before its body is read or parsed, so an overloaded process spends almost
 * nothing on it and its memory stays bounded however many connections arrive.
 */
export class LoadShedder {
  private inFlight = 0;
  private delayMs = 0;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly overloaded: HttpError;

  constructor(private readonly settings: LoadSheddingSettings) {
    this.overloaded = new HttpError(503, 'Service unavailable: the server is overloaded; retry later', ErrorCode.Overloaded, { 'retry-after': String(settings.retryAfterSeconds) });
    if (settings.maxEventLoopDelayMs > 0) {
      // The loop's delay as a timer's lateness: a timer due every 100 ms that fires late by N ms saw the loop held
      // for about N ms. Read in the timers phase, so a lag is known before the I/O that queued behind it is served.
      let expected = performance.now() + LAG_TICK_MS;
      let seenAt = 0;
      this.timer = setInterval(() => {
        const now = performance.now();
        const lag = Math.max(0, now - expected);
        expected = now + LAG_TICK_MS;
        // The worst lag of the last second counts: a process that just stalled is likely to stall again.
        if (lag >= this.delayMs || now - seenAt > LAG_HOLD_MS) {
          this.delayMs = lag;
          seenAt = now;
        }
      }, LAG_TICK_MS);
      this.timer.unref();
    }
  }

  /** Why this auction is refused now, or undefined when it may go on (then it counts as in flight until `done`). */
  admit(): 'auctions-in-flight' | 'event-loop-delay' | undefined {
    const { maxAuctionsInFlight, maxEventLoopDelayMs } = this.settings;
    if (maxAuctionsInFlight > 0 && this.inFlight >= maxAuctionsInFlight) return 'auctions-in-flight';
    if (maxEventLoopDelayMs > 0 && this.delayMs > maxEventLoopDelayMs) return 'event-loop-delay';
    this.inFlight++;
    return undefined;
  }

  done(): void {
    this.inFlight--;
  }

  /** The 503 a refused auction gets (one error object: refusing must cost nothing). */
  get refusal(): HttpError {
    return this.overloaded;
  }

  get auctionsInFlight(): number {
    return this.inFlight;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
