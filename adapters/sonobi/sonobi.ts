/**
 * Sonobi bidder: one call per imp, in USD, the imp tagged with its Sonobi tag id. Sonobi answers in USD; a bid for
 * an imp Sonobi was not asked about voids the whole answer.
 */
import {
  badInput,
  isJsonObject,
  readBidderParams,
  readGoBidResponse,
  seatBids,
  unknownError,
  withFloorInCurrency,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type RequestData,
  type RequestInfo,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

const HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };

export function createSonobiBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request: BidRequest, info: RequestInfo): MakeRequestsResult {
      const requests: RequestData[] = [];
      const errors: BidderError[] = [];
      // Prebid Server decodes every imp's params into one shared value: an imp without a tag id takes the previous one.
      const shared = { tagId: '' };
      for (const imp of request.imp) {
        const problem = readTagIdInto(imp, shared);
        if (problem) {
          errors.push(unknownError(problem));
          continue;
        }
        const tagged: Imp = { ...imp, tagid: shared.tagId };
        if (shared.tagId === '') delete tagged.tagid;
        const prepared = withFloorInCurrency(tagged, 'USD', info);
        if ('error' in prepared) {
          errors.push(unknownError(prepared.error));
          continue;
        }
        // Sonobi only bids in USD.
        requests.push({ method: 'POST', uri: config.endpoint, body: { ...request, imp: [prepared.imp], cur: ['USD'] }, headers: { ...HEADERS }, impIds: [imp.id] });
      }
      return { requests, errors };
    },

    makeBids(request: BidRequest, _sent, response: ResponseData): MakeBidsResult {
      const decoded = readGoBidResponse(response);
      if ('result' in decoded) return decoded.result;

      const bids: TypedBid[] = [];
      for (const { bid } of seatBids(decoded.body)) {
        if (!isJsonObject(bid)) continue;
        const impId = typeof bid.impid === 'string' ? bid.impid : '';
        const imp = request.imp.find((candidate) => candidate.id === impId);
        if (!imp) return { bids: [], errors: [badInput(`Failed to find impression "${impId}" `)] };
        bids.push({ bid: bid as Bid, type: bidType(imp) });
      }
      return { currency: 'USD', bids };
    },
  };
}

/**
 * Reads the tag id into the shared value. Go matches the `tagid` field name ignoring case (the params say `TagID`),
 * the last matching key wins, and null leaves the value as it was. Returns the problem when the params cannot be
 * decoded.
 */
function readTagIdInto(imp: Imp, shared: { tagId: string }): string | undefined {
  const read = readBidderParams(imp, 'openrtb_ext.ExtImpSonobi');
  if ('error' in read) return read.error;
  for (const [key, value] of Object.entries(read.params)) {
    if (key.toLowerCase() !== 'tagid' || value === null) continue;
    if (typeof value !== 'string') return `cannot unmarshal openrtb_ext.ExtImpSonobi.${key}: expects a string`;
    shared.tagId = value;
  }
  return undefined;
}

/** Banner whenever the imp has one; otherwise video, then native; banner again when it has none of them. */
function bidType(imp: Imp): MediaType {
  if (imp.banner) return 'banner';
  if (imp.video) return 'video';
  if (imp.native) return 'native';
  return 'banner';
}
