import type { Middleware } from 'koa';
import { BidderErrorCode, type BidderError, type ModuleDeps, type SeatResult } from '../api/index.js';
import type { AuctionOutcomeLabel, BidderCallOutcome, Metrics } from './metrics.js';

/**
 * Small adapters between the core's own results and the metric labels, so the call sites in the pipeline, the
 * hook executor, the cache client and the HTTP edge stay one line each.
 */

/** The label of a pipeline outcome (`AuctionOutcome.kind`). */
export function auctionOutcomeLabel(kind: 'completed' | 'invalid' | 'rejected'): AuctionOutcomeLabel {
  return kind === 'completed' ? 'ok' : kind;
}

/** A bidder's outcome: any bid wins; else a timeout, else any other error; else it simply did not bid. */
export function bidderCallOutcome(bidCount: number, errors: readonly BidderError[]): BidderCallOutcome {
  if (bidCount > 0) return 'bid';
  if (errors.length === 0) return 'nobid';
  for (const error of errors) if (error.code === BidderErrorCode.Timeout) return 'timeout';
  return 'error';
}

/**
 * Records one bidder's part in an auction as the auction saw it, once the auction stopped waiting: a bidder still
 * out at the deadline is a timeout timed at the deadline, whenever its call ends. A seat with no response time was
 * never called (skipped for lack of time, disabled, or rejected by a module): it is counted but not timed.
 */
export function recordBidderSeat(metrics: Metrics, seat: SeatResult): void {
  metrics.bidderCall(seat.adapter, bidderCallOutcome(seat.bids.length, seat.errors), seat.responseTimeMs > 0 ? seat.responseTimeMs : undefined);
}

type CachePut = ModuleDeps['cachePut'];

/**
 * Wraps the modules' `cachePut` to count each put. The cache clients never throw: a value they could not store comes
 * back as `undefined`, so a put is 'ok' only when every value got an id.
 */
export function instrumentCachePut(put: CachePut, metrics: Metrics): CachePut {
  return async (values, deadline) => {
    let ids: Array<string | undefined>;
    try {
      ids = await put(values, deadline);
    } catch (err) {
      metrics.cachePut('error', values.length);
      throw err;
    }
    let stored = 0;
    for (const id of ids) if (id !== undefined) stored++;
    metrics.cachePut(stored === values.length ? 'ok' : 'error', values.length);
    return ids;
  };
}

/**
 * Koa middleware counting every answer of the public listener by route pattern and status. It must be the first
 * middleware, so it sees the status the error handler settles on. Routes are the router's patterns
 * (`/info/bidders/:name`) where the router matched, else the path, which the metrics bound to the known routes.
 */
export function httpMetricsMiddleware(metrics: Metrics): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      metrics.httpRequest(routeOf(ctx), statusOfError(err));
      throw err;
    }
    metrics.httpRequest(routeOf(ctx), ctx.status);
  };
}

function routeOf(ctx: { path: string }): string {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  return typeof matched === 'string' ? matched : ctx.path;
}

function statusOfError(err: unknown): number {
  const status = (err as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : 500;
}
