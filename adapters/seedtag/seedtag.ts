/**
 * Seedtag bidder: every imp goes to Seedtag in one call, with its floor in US dollars and the request asking for
 * USD bids. Seedtag reads its params from `imp.ext.bidder` itself. Bids must say their markup type in `bid.mtype`.
 */
import {
  checkResponseStatus,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  mediaTypeFromMtype,
  encodeAsOpenrtb2Request,
  unknownError,
  withFloorInCurrency,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
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

      // Prebid Server re-encodes the request: empty top-level fields are left out.
      const body: BidRequest = encodeAsOpenrtb2Request({ ...request, cur: ['USD'], imp: imps });
      const call = { method: 'POST' as const, uri: config.endpoint, body, headers: { ...HEADERS }, impIds: imps.map((imp) => imp.id) };
      return { requests: [call], errors };
    },

    makeBids(_request, _sent, response) {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;
      // Prebid Server returns its decoder's error as it is (a generic error), and any field of the wrong type, a bid
      // that is not an object included, fails the whole answer.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const type = mediaTypeFromMtype(bid.mtype, ['banner', 'video']);
          if (type) bids.push({ bid, type });
          else errors.push(unknownError('bid.MType invalid'));
        }
      }
      // The request asked for USD, and Seedtag's `cur` is not read.
      return errors.length > 0 ? { currency: 'USD', bids, errors } : { currency: 'USD', bids };
    },
  };
}

