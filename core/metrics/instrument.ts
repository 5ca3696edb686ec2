import { BidderErrorCode, type BidderError, type ModuleDeps, type SeatResult } from '../api/index.js';
import { CACHE_UNAVAILABLE_WARNING, type CacheClient, type CacheProblem } from '../cache/client.js';
import type { AuctionOutcomeLabel, BidderCallOutcome, Metrics } from './metrics.js';

/**
 * Small adapters between the core's own results and the metric labels, so the call sites in the pipeline, the
 * hook executor and the cache client stay one line each.
 */

/** The label of a pipeline outcome (`AuctionOutcome.kind`). */
export function auctionOutcomeLabel(kind: 'completed' | 'invalid' | 'rejected' | 'failed'): AuctionOutcomeLabel {
  return kind === 'completed' ? 'ok' : kind;
}

/** A bidder's outcome: any bid wins; else a timeout, else any other error; else it simply did not bid. */
export function bidderCallOutcome(bidCount: number, errors: readonly BidderError[]): BidderCallOutcome {
  if (bidCount > 0) return 'bid';
  if (errors.length === 0) return 'nobid';
  for (const error of errors) if (error.code === BidderErrorCode.Timeout || error.code === BidderErrorCode.TmaxTimeout) return 'timeout';
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

const CACHE_WARNINGS: Record<CacheProblem, string> = {
  skipped: 'bids were not cached: the bid cache is unavailable (skipped after repeated failures), so hb_cache_id is absent',
  failed: 'bids were not cached: the bid cache failed or did not answer in time, so hb_cache_id is absent',
};

/**
 * The modules' `cachePut` over the cache client: counts each put (`skipped` when the cache's breaker is open, `ok`
 * when every value got an id, else `error`), and tells the request, through its context, when the cache itself left
 * bids uncached. The cache clients never throw: a value they could not store comes back as `undefined`.
 */
export function instrumentCachePut(put: CacheClient['put'], metrics: Metrics): CachePut {
  return (values, deadline, context) => {
    let problem: CacheProblem | undefined;
    let pending: Promise<Array<string | undefined>>;
    try {
      pending = put(values, deadline, (reported) => (problem ??= reported));
    } catch (err) {
      pending = Promise.reject(err);
    }
    // One `then`, not an async function: this runs in every auction that caches, and each await is a promise more.
    return pending.then(
      (ids) => {
        let stored = 0;
        for (const id of ids) if (id !== undefined) stored++;
        metrics.cachePut(problem === 'skipped' ? 'skipped' : stored === values.length ? 'ok' : 'error', values.length);
        if (problem) context?.warn('general', { code: CACHE_UNAVAILABLE_WARNING, message: CACHE_WARNINGS[problem] });
        return ids;
      },
      (err: unknown) => {
        metrics.cachePut('error', values.length);
        throw err;
      },
    );
  };
}
