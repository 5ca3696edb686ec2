/**
 * OpenWeb bidder: the whole auction share goes to OpenWeb in one call, unchanged, addressed to the publisher
 * (organisation) named by the first imp that has one. Bids must say their markup type in `bid.mtype`.
 */
import {
  badInput,
  badServerResponse,
  bidResponseCurrency,
  compileEndpoint,
  isJsonObject,
  mediaTypeFromMtype,
  PBS_STATUS_CHECK,
  readBidResponse,
  seatBids,
  unknownError,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type TypedBid,
} from '../../core/api/index.js';

const HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json;charset=utf-8' };

export function createOpenwebBidder(config: BidderConfig): Bidder {
  const endpoint = compileEndpoint(config.endpoint);
  return {
    makeRequests(request) {
      const org = publisherOf(request);
      if ('error' in org) return { requests: [], errors: [unknownError(`checkExtAndExtractOrg: ${org.error}`)] };
      let uri: string;
      try {
        uri = endpoint.expand({ PublisherId: org.id });
      } catch (err) {
        return { requests: [], errors: [badInput(`cannot build the endpoint: ${(err as Error).message}`)] };
      }
      const impIds = request.imp.map((imp) => imp.id);
      return { requests: [{ method: 'POST', uri, body: request, headers: { ...HEADERS }, impIds }] };
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
        else errors.push(badServerResponse(`unsupported MType ${typeof bid.mtype === 'number' ? bid.mtype : 0}`));
      }
      const currency = bidResponseCurrency(read.body) ?? 'USD';
      return errors.length > 0 ? { currency, bids, errors } : { currency, bids };
    },
  };
}

/**
 * The publisher the call is for: imps are read in order, each must have a placement id, and the first with an `org`
 * (trimmed) or a non-zero `aid` decides.
 */
function publisherOf(request: BidRequest): { id: string } | { error: string } {
  for (const imp of Array.isArray(request.imp) ? request.imp : []) {
    if (!isJsonObject(imp.ext)) return { error: 'unmarshal bidderExt: imp.ext is not an object' };
    const params = imp.ext.bidder;
    if (!isJsonObject(params)) return { error: 'unmarshal ExtImpOpenWeb: ext.bidder is not an object' };
    const { placementId, org, aid } = params;
    if (placementId !== undefined && placementId !== null && typeof placementId !== 'string') {
      return { error: 'unmarshal ExtImpOpenWeb: placementId is not a string' };
    }
    if (org !== undefined && org !== null && typeof org !== 'string') return { error: 'unmarshal ExtImpOpenWeb: org is not a string' };
    if (aid !== undefined && aid !== null && !Number.isInteger(aid)) return { error: 'unmarshal ExtImpOpenWeb: aid is not an integer' };

    if (!placementId) return { error: 'no placement id supplied' };
    if (org) return { id: org.trim() };
    if (typeof aid === 'number' && aid !== 0) return { id: String(aid) };
  }
  return { error: 'no org or aid supplied' };
}
