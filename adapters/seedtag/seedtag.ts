/**
 * Seedtag bidder: every imp goes to Seedtag in one call, with its floor in US dollars and the request asking for
 * USD bids. Seedtag reads its params from `imp.ext.bidder` itself. Bids must say their markup type in `bid.mtype`.
 */
import {
  badServerResponse,
  isJsonObject,
  mediaTypeFromMtype,
  PBS_STATUS_CHECK,
  readBidResponse,
  seatBids,
  unknownError,
  withFloorInCurrency,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Imp,
  type TypedBid,
} from '../../core/api/index.js';

const HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };

export function createSeedtagBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request, info) {
      const errors: BidderError[] = [];
      const imps: Imp[] = [];
      for (const imp of Array.isArray(request.imp) ? request.imp : []) {
        // A floor in another currency is converted to USD; an imp whose floor cannot be converted is left out.
        const priced = withFloorInCurrency(imp, 'USD', info);
        if ('error' in priced) errors.push(unknownError(priced.error));
        else imps.push(priced.imp);
      }
      if (imps.length === 0) return { requests: [], errors };

      const body: BidRequest = { ...request, cur: ['USD'], imp: imps };
      const call = { method: 'POST' as const, uri: config.endpoint, body, headers: { ...HEADERS }, impIds: imps.map((imp) => imp.id) };
      return { requests: [call], errors };
    },

    makeBids(_request, _sent, response) {
      const read = readBidResponse(response, PBS_STATUS_CHECK);
      if ('result' in read) return read.result;

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid } of seatBids(read.body)) {
        if (!isJsonObject(bid)) {
          errors.push(badServerResponse('Bad server response: a bid is not an object'));
          continue;
        }
        const type = mediaTypeFromMtype(bid.mtype, ['banner', 'video']);
        if (type) bids.push({ bid: bid as Bid, type });
        else errors.push(unknownError('bid.MType invalid'));
      }
      // The request asked for USD, and Seedtag's `cur` is not read.
      return errors.length > 0 ? { currency: 'USD', bids, errors } : { currency: 'USD', bids };
    },
  };
}

