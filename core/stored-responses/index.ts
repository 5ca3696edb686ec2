export { namesStoredResponses, readStoredResponses, type KnownBidder, type StoredBidAnswer, type StoredResponses, type StoredResponsesOutcome, type StoredResponsesReadOptions } from './read.js';
export { readStoredAnswers, setAsideStoredImps, storedAuctionSeats, type StoredShare } from './answers.js';

import type { BidRequest, Namespace } from '../api/index.js';
import type { StoredDataFetcher } from '../stored/index.js';
import { namesStoredResponses, readStoredResponses, type KnownBidder, type StoredResponsesOutcome, type StoredResponsesReadOptions } from './read.js';

/** Reads the stored responses a request names (bound under `Tokens.StoredResponses`; a test or runner may replace it). */
export interface StoredResponseReader {
  read(request: BidRequest, namespace: Namespace, options?: StoredResponsesReadOptions): StoredResponsesOutcome | Promise<StoredResponsesOutcome>;
}

/**
 * The reader over the stored-data backends: synchronous (and free) for the requests that name none. `knownBidder`
 * tells the bidder names a stored bid response may be for (this host's bidders and aliases, any case).
 */
export function storedResponseReader(fetcher: StoredDataFetcher, knownBidder?: KnownBidder): StoredResponseReader {
  return { read: (request, namespace, options) => (namesStoredResponses(request, namespace) ? readStoredResponses(request, namespace, fetcher, options, knownBidder) : undefined) };
}
