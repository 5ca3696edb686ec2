import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { ErrorCode } from '../api/index.js';
import { HttpError } from './body.js';

export interface LoadSheddingSettings {
  /** Auctions answered at once past this many in flight; 0 switches the check off. */
  maxAuctionsInFlight: number;
  /** Auctions answered at once while the event loop's delay (the worst over the last two half-second windows) is above this; 0 switches it off. */
  maxEventLoopDelayMs: number;
  /** What the 503's Retry-After says. */
  retryAfterSeconds: number;
}

/** How often the event loop's delay is read (and its histogram started afresh). */
const DELAY_WINDOW_MS = 500;

/**
 * Load shedding for the auction endpoints: past a number of auctions in flight, or while the event loop lags, a
 * request is answered 503 with Retry-After before its body is read or parsed, so an overloaded process spends almost
 * nothing on it and its memory stays bounded however many connections arrive.
 */
export class LoadShedder {
  private inFlight = 0;
  private delayMs = 0;
  private readonly histogram: IntervalHistogram | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly overloaded: HttpError;

  constructor(private readonly settings: LoadSheddingSettings) {
    this.overloaded = new HttpError(503, 'Service unavailable: the server is overloaded; retry later', ErrorCode.Overloaded, { 'retry-after': String(settings.retryAfterSeconds) });
    if (settings.maxEventLoopDelayMs > 0) {
      this.histogram = monitorEventLoopDelay({ resolution: 10 });
      this.histogram.enable();
      let previousWindow = 0;
      this.timer = setInterval(() => {
        const thisWindow = this.histogram!.max / 1e6;
        // The worst of two windows: a lag seen at the end of one window still counts through the next.
        this.delayMs = Math.max(thisWindow, previousWindow);
        previousWindow = thisWindow;
        this.histogram!.reset();
      }, DELAY_WINDOW_MS);
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
    this.histogram?.disable();
  }
}
