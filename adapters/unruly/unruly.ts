import {
  badInput,
  badServerResponse,
  checkResponseStatus,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unknownError,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type RequestData,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

const REQUEST_HEADERS = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };

export function createUnrulyBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const imps: Imp[] = [];
      for (const imp of request.imp) {
        const siteIds = readSiteIds(imp);
        // One imp without readable params aborts the whole request.
        if (typeof siteIds === 'string') return { requests: [], errors: [badInput(siteIds)] };
        imps.push({ ...imp, ext: { bidder: siteIds } });
      }
      if (!config.endpoint) return { requests: [] };
      return {
        requests: [{ method: 'POST', uri: config.endpoint, body: encodeAsOpenrtb2Request({ ...request, imp: imps }), headers: { ...REQUEST_HEADERS }, impIds: imps.map((imp) => imp.id) }],
      };
    },

    makeBids(request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response, { text: (status) => `unexpected status code: ${status}. Run with request.debug = 1 for more info` });
      if (statusResult) return statusResult;
      const decoded = decodeOpenrtb2BidResponse(response.body);
      // Prebid Server formats its decoder's error with %d, which Go prints as the error struct with a bad-verb note.
      if ('error' in decoded) return { bids: [], errors: [badServerResponse(`bad server response: &{%!d(string=${decoded.error})}. `)] };

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const type = mediaTypeOf(bid.impid, request.imp);
          if (typeof type !== 'string') {
            errors.push(type.error);
            continue;
          }
          const typed: TypedBid = { bid, type };
          if (type === 'video' && typeof bid.dur === 'number' && bid.dur > 0) typed.video = { duration: bid.dur };
          bids.push(typed);
        }
      }
      return { currency: 'USD', bids, errors };
    },
  };
}

/**
 * The imp's site ids, as Prebid Server decodes them: `siteid` and `siteId` are two fields (an exact spelling goes to
 * its own field, any other capitalisation to `siteid`), both integers, both sent back (zero when absent). Returns
 * Prebid Server's error text when the params cannot be read.
 */
function readSiteIds(imp: Imp): { siteid: number; siteId: number } | string {
  const ext = decodeExtImpBidder(imp.ext);
  if ('error' in ext) return `ext data not provided in imp id=${imp.id}. Abort all Request`;
  const invalid = `siteid not provided in imp id=${imp.id}. Abort all Request`;
  const bidder = ext.value.bidder;
  if (bidder === undefined) return invalid;
  const ids = { siteid: 0, siteId: 0 };
  if (bidder === null) return ids;
  if (!isJsonObject(bidder)) return invalid;
  for (const [key, value] of Object.entries(bidder)) {
    if (key.toLowerCase() !== 'siteid' || value === null) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) return invalid;
    ids[key === 'siteId' ? 'siteId' : 'siteid'] = value;
  }
  return ids;
}

/** Banner when the bid's imp has a banner, else video when it has a video. */
function mediaTypeOf(impId: unknown, imps: Imp[]): MediaType | { error: BidderError } {
  const imp = imps.find((candidate) => candidate.id === impId);
  if (!imp) {
    const offered = imps.map((candidate) => candidate.id).join(' ');
    return { error: unknownError(`Bid response imp ID ${String(impId ?? '')} not found in bid request containing imps [${offered}]\n`) };
  }
  if (imp.banner) return 'banner';
  if (imp.video) return 'video';
  return { error: unknownError("bid responses mediaType didn't match supported mediaTypes") };
}
