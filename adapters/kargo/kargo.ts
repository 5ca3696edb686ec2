/**
 * Kargo bidder: the whole auction share goes to Kargo's OpenRTB endpoint as it is, in one call. Kargo reads its
 * placement from `imp.ext.bidder` itself, so the request is not rewritten. Bids say their media type in
 * `bid.ext.mediaType` (`video` or `native`); anything else is banner.
 */
import {
  badServerResponse,
  BidderErrorCode,
  bidResponseCurrency,
  isJsonObject,
  readBidResponse,
  seatBids,
  unexpectedStatusText,
  type Bid,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type MediaType,
  type TypedBid,
} from '../../core/api/index.js';

export function createKargoBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request) {
      const impIds = (Array.isArray(request.imp) ? request.imp : []).map((imp) => imp.id);
      return { requests: [{ method: 'POST', uri: config.endpoint, body: request, impIds }] };
    },

    makeBids(_request, _sent, response) {
      // Kargo's Go adapter does not set a 400 apart, and ends its text with a period.
      const read = readBidResponse(response, { text: (status) => `${unexpectedStatusText(status)}.`, badRequestCode: BidderErrorCode.BadServerResponse });
      if ('result' in read) return read.result;

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid } of seatBids(read.body)) {
        if (isJsonObject(bid)) bids.push({ bid: bid as Bid, type: mediaTypeOf(bid as Bid) });
        else errors.push(badServerResponse('Bad server response: a bid is not an object'));
      }
      const currency = bidResponseCurrency(read.body) ?? 'USD';
      return errors.length > 0 ? { currency, bids, errors } : { currency, bids };
    },
  };
}

function mediaTypeOf(bid: Bid): MediaType {
  const declared = isJsonObject(bid.ext) ? bid.ext.mediaType : undefined;
  return declared === 'video' || declared === 'native' ? declared : 'banner';
}
