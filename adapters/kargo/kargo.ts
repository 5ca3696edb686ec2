/**
 * Kargo bidder: the whole auction share goes to Kargo's OpenRTB endpoint in one call, as Prebid Server re-encodes it.
 * Kargo reads its placement from `imp.ext.bidder` itself, so nothing else is rewritten. Bids say their media type in
 * `bid.ext.mediaType` (`video` or `native`); anything else is banner.
 */
import {
  BidderErrorCode,
  checkResponseStatus,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  fieldIgnoringCase,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unexpectedStatusText,
  type Bid,
  type Bidder,
  type BidderConfig,
  type MediaType,
  type TypedBid,
} from '../../core/api/index.js';

export function createKargoBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request) {
      const impIds = (Array.isArray(request.imp) ? request.imp : []).map((imp) => imp.id);
      return { requests: [{ method: 'POST', uri: config.endpoint, body: encodeAsOpenrtb2Request(request), impIds }] };
    },

    makeBids(_request, _sent, response) {
      // Kargo's Go adapter does not set a 400 apart, and ends its text with a period.
      const statusResult = checkResponseStatus(response, {
        text: (status) => `${unexpectedStatusText(status)}.`,
        badRequestCode: BidderErrorCode.BadServerResponse,
      });
      if (statusResult) return statusResult;

      // The decoder's error goes back as it is (a generic error): one bad bid fails the whole answer.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      for (const seatbid of decoded.value.seatbid) for (const bid of seatbid.bid) bids.push({ bid, type: mediaTypeOf(bid) });
      return { currency: decoded.value.cur || 'USD', bids };
    },
  };
}

/**
 * Go decodes `bid.ext` into `{ MediaType string }`: the key matched ignoring case; an ext that is absent, not an
 * object, or whose mediaType is not a string fails that decode, which makes the bid a banner.
 */
function mediaTypeOf(bid: Bid): MediaType {
  const declared = isJsonObject(bid.ext) ? fieldIgnoringCase(bid.ext, 'mediaType') : undefined;
  return declared === 'video' || declared === 'native' ? declared : 'banner';
}
