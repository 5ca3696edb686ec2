import {
  badInput,
  badServerResponse,
  BidderErrorCode,
  checkResponseStatus,
  compileEndpoint,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  fieldIgnoringCase,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unexpectedStatusText,
  unknownError,
  type Bidder,
  type BidderConfig,
  type BidRequest,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type RequestData,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

export function createOnetagBidder(config: BidderConfig): Bidder {
  const endpoint = compileEndpoint(config.endpoint);

  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      // Every imp must name the same publisher: it picks the endpoint of the one call.
      let publisherId = '';
      for (const imp of request.imp) {
        const read = readPublisherId(imp);
        if ('error' in read) return { requests: [], errors: [badInput(read.error)] };
        if (read.publisherId === '') return { requests: [], errors: [badInput('The publisher ID must not be empty')] };
        if (publisherId === '') publisherId = read.publisherId;
        else if (publisherId !== read.publisherId) return { requests: [], errors: [badInput('There must be only one publisher ID')] };
      }
      let uri: string;
      try {
        uri = endpoint.expand({ PublisherID: publisherId });
      } catch (err) {
        return { requests: [], errors: [unknownError(`cannot build the endpoint: ${(err as Error).message}`)] };
      }
      // The request goes as it came, re-encoded as Go's openrtb2.BidRequest; no headers, as in Prebid Server.
      return { requests: [{ method: 'POST', uri, body: encodeAsOpenrtb2Request(request), impIds: request.imp.map((imp) => imp.id) }] };
    },

    makeBids(request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      // OneTag's Go adapter does not set a 400 apart, and ends its text with a period.
      const statusResult = checkResponseStatus(response, { text: (status) => `${unexpectedStatusText(status)}.`, badRequestCode: BidderErrorCode.BadServerResponse });
      if (statusResult) return statusResult;
      // The decoder's own error goes back as it is, as the Go adapter returns it.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const type = mediaTypeOf(bid.impid, request.imp);
          // A bid that matches no imp fails the whole response.
          if (!type) return { bids: [], errors: [badServerResponse(`The impression with ID ${bid.impid} is not present into the request`)] };
          bids.push({ bid, type });
        }
      }
      return { currency: decoded.value.cur || undefined, bids };
    },
  };
}

/**
 * The imp's `pubId`, read in Go's two decoding steps: `imp.ext` into `adapters.ExtImpBidder` (absent, not an object
 * or with a typed member of the wrong type fails; `null` is an empty extension), then its `bidder` (absent fails;
 * `null` is empty params, so an empty publisher id). Keys match in any case.
 */
function readPublisherId(imp: Imp): { publisherId: string } | { error: string } {
  // `imp.ext` into `adapters.ExtImpBidder`: its `prebid` and `ae` typed, so one of the wrong type fails it too.
  const ext = decodeExtImpBidder(imp.ext);
  if ('error' in ext) return { error: "Bidder extension not provided or can't be unmarshalled" };
  const params = ext.value.bidder;
  if (params === null) return { publisherId: '' };
  if (!isJsonObject(params)) return { error: 'Error while unmarshaling bidder extension' };
  const publisherId = fieldIgnoringCase(params, 'pubId');
  if (publisherId !== undefined && publisherId !== null && typeof publisherId !== 'string') return { error: 'Error while unmarshaling bidder extension' };
  return { publisherId: publisherId ?? '' };
}

/** The type of the first imp with the bid's id that has banner, video or native (in that order). */
function mediaTypeOf(impId: string, imps: Imp[]): MediaType | undefined {
  for (const imp of imps) {
    if (imp.id !== impId) continue;
    if (imp.banner) return 'banner';
    if (imp.video) return 'video';
    if (imp.native) return 'native';
  }
  return undefined;
}
