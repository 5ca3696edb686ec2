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
  decodeGoFields,
  GO_STRING_FIELD,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unexpectedStatusText,
  type Bid,
  type Bidder,
  type BidderConfig,
  type GoField,
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
 * Go decodes `bid.ext` into `kargoExt { MediaType string }`: keys matched ignoring case in the order written, the first
 * of the wrong type failing the decode; an ext that is absent, not an object, or fails makes the bid a banner.
 */
function mediaTypeOf(bid: Bid): MediaType {
  const decoded = isJsonObject(bid.ext) ? decodeGoFields(bid.ext, 'kargo.kargoExt', MEDIA_TYPE_FIELD) : undefined;
  const declared = decoded && 'values' in decoded ? decoded.values.mediatype : undefined;
  return declared === 'video' || declared === 'native' ? declared : 'banner';
}

const MEDIA_TYPE_FIELD: Readonly<Record<string, GoField>> = { mediatype: GO_STRING_FIELD('MediaType') };
