import {
  badInput,
  badServerResponse,
  bidMediaType,
  compileEndpoint,
  isJsonObject,
  readJsonResponse,
  seatBids,
  type Bid,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type BidResponse,
  type Imp,
  type JsonObject,
  type MakeBidsResult,
  type TypedBid,
} from '../../core/api/index.js';

/** Values an endpoint template may use: every scalar of the first imp's params. */
function macroValues(imp: Imp | undefined): Record<string, string | number | undefined> {
  const params = isJsonObject(imp?.ext?.bidder) ? (imp!.ext!.bidder as JsonObject) : {};
  const values: Record<string, string | number | undefined> = {};
  for (const [key, value] of Object.entries(params)) if (typeof value === 'string' || typeof value === 'number') values[key] = value;
  return values;
}

/**
 * The generic OpenRTB bidder: forwards the bidder's share of the request as one OpenRTB call (params in
 * `imp.ext.bidder`), and reads a standard BidResponse back.
 */
export function createOrtbBidder(config: BidderConfig): Bidder {
  const endpoint = compileEndpoint(config.endpoint);
  const usesMacros = config.endpoint.includes('{{');
  return {
    makeRequests(request) {
      let uri = config.endpoint;
      if (usesMacros) {
        try {
          uri = endpoint.expand(macroValues(request.imp[0]));
        } catch (err) {
          return { requests: [], errors: [badInput(`cannot build the endpoint from the params: ${(err as Error).message}`)] };
        }
      }
      return {
        requests: [{ method: 'POST', uri, body: request, impIds: request.imp.map((imp) => imp.id) }],
      };
    },

    makeBids(request, _sent, response): MakeBidsResult {
      const read = readJsonResponse<BidResponse>(response);
      if (read.error) return { bids: [], errors: [read.error] };
      if (read.noBid || !read.value) return { bids: [] };
      const answer = read.value;
      if (!isJsonObject(answer) || (answer.seatbid !== undefined && !Array.isArray(answer.seatbid))) {
        return { bids: [], errors: [badServerResponse('Bad server response: not an OpenRTB BidResponse')] };
      }
      const impsById = new Map(request.imp.map((imp) => [imp.id, imp]));
      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid: candidate } of seatBids(answer)) {
        if (!isJsonObject(candidate) || typeof candidate.price !== 'number' || typeof candidate.impid !== 'string') {
          errors.push(badServerResponse('Bad server response: a bid lacks a numeric price or an impid'));
          continue;
        }
        const bid = candidate as Bid;
        const imp = impsById.get(bid.impid);
        if (!imp) {
          errors.push(badServerResponse(`bid ${bid.id} is for imp "${bid.impid}", which was not offered`));
          continue;
        }
        const type = bidMediaType(bid, imp);
        if (!type) {
          errors.push(badServerResponse(`bid ${bid.id}: cannot tell its media type (set bid.mtype; imp "${bid.impid}" offers several)`));
          continue;
        }
        const typed: TypedBid = { bid, type };
        // No primary category: an adapter's primary category is an ad server's own, used as it is in place of
        // bid.cat, and OpenRTB bids carry IAB categories, which the category mapping translates.
        if (type === 'video') typed.video = { duration: typeof bid.dur === 'number' ? bid.dur : undefined };
        bids.push(typed);
      }
      return { currency: answer.cur || 'USD', bids, errors };
    },
  };
}
