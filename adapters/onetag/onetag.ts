import {
  badInput,
  badServerResponse,
  BidderErrorCode,
  bidResponseCurrency,
  compileEndpoint,
  encodeAsOpenrtb2Bid,
  isJsonObject,
  readGoBidResponse,
  seatBids,
  unexpectedStatusText,
  unknownError,
  type BidRequest,
  type Bidder,
  type BidderConfig,
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
      // The request goes as it came.
      return { requests: [{ method: 'POST', uri, body: request, impIds: request.imp.map((imp) => imp.id) }] };
    },

    makeBids(request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      // OneTag's Go adapter does not set a 400 apart, and ends its text with a period.
      const parsed = readGoBidResponse(response, {
        status: { text: (status) => `${unexpectedStatusText(status)}.`, badRequestCode: BidderErrorCode.BadServerResponse },
        decodeError: (detail) => unknownError(`cannot read the bid response: ${detail}`),
      });
      if ('result' in parsed) return parsed.result;
      const body = parsed.body;

      const bids: TypedBid[] = [];
      for (const { bid } of seatBids(body)) {
        if (!isJsonObject(bid)) continue;
        const impId = typeof bid.impid === 'string' ? bid.impid : '';
        const type = mediaTypeOf(impId, request.imp);
        // A bid that matches no imp fails the whole response.
        if (!type) return { bids: [], errors: [badServerResponse(`The impression with ID ${impId} is not present into the request`)] };
        bids.push({ bid: encodeAsOpenrtb2Bid(bid), type });
      }
      const currency = bidResponseCurrency(body);
      return { currency, bids };
    },
  };
}

function readPublisherId(imp: Imp): { publisherId: string } | { error: string } {
  if (!isJsonObject(imp.ext)) return { error: "Bidder extension not provided or can't be unmarshalled" };
  const params = imp.ext.bidder;
  if (!isJsonObject(params)) return { error: 'Error while unmarshaling bidder extension' };
  const publisherId = params.pubId;
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
