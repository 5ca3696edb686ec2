/**
 * Smaato bidder (SOMA): see requests.ts for how calls are built and responses.ts for how answers are read.
 */
import type { Bidder, BidderConfig } from '../../core/api/index.js';
import { smaatoRequests } from './requests.js';
import { smaatoBids } from './responses.js';

/** `now` is the clock bid expiry is measured against (epoch milliseconds): the host's, or a test's pinned one. */
export function createSmaatoBidder(config: BidderConfig, now: () => number): Bidder {
  return {
    makeRequests: (request, info) => smaatoRequests(request, config.endpoint, info.endpoint === 'video'),
    makeBids: (_request, _sent, response) => smaatoBids(response, now),
  };
}
