/**
 * Sonobi bidder: one call per imp, in USD, the imp tagged with its Sonobi tag id. Sonobi answers in USD; a bid for
 * an imp Sonobi was not asked about voids the whole answer.
 */
import {
  badInput,
  checkResponseStatus,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  goObjectExpected,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unknownError,
  withFloorInCurrency,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
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
          // Prebid Server returns the decoder's error as is: FailedToUnmarshal.
          errors.push(failedToUnmarshal(problem));
          continue;
        }
        const tagged: Imp = { ...imp, tagid: shared.tagId };
        const prepared = withFloorInCurrency(tagged, 'USD', info);
        if ('error' in prepared) {
          errors.push(unknownError(prepared.error));
          continue;
        }
        // Sonobi only bids in USD.
        const body = encodeAsOpenrtb2Request({ ...request, imp: [prepared.imp], cur: ['USD'] });
        requests.push({ method: 'POST', uri: config.endpoint, body, headers: { ...HEADERS }, impIds: [imp.id] });
      }
      return { requests, errors };
    },

    makeBids(request: BidRequest, _sent, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const imp = request.imp.find((candidate) => candidate.id === bid.impid);
          if (!imp) return { bids: [], errors: [badInput(`Failed to find impression "${bid.impid}" `)] };
          bids.push({ bid, type: bidType(imp) });
        }
      }
      return { currency: 'USD', bids };
    },
  };
}

/**
 * Reads the tag id into the shared value, as Prebid Server reads each request copy's imp (MakeRequests, sonobi.go):
 * `imp.ext` into `adapters.ExtImpBidder` (the SDK's `decodeExtImpBidder`: `prebid` a typed `ExtImpPrebid`, `ae` an
 * int8), then its `bidder` into `openrtb_ext.ExtImpSonobi`: the `tagid` field name matched ignoring case (the params
 * say `TagID`), the last matching key winning, and `null` setting it empty. Returns the decoder's text when `imp.ext`
 * or its params cannot be decoded; the shared value is then left as it was.
 */
function readTagIdInto(imp: Imp, shared: { tagId: string }): string | undefined {
  // A `null` imp.ext decodes to no params at all, as an absent one does.
  const ext = decodeExtImpBidder(imp.ext ?? null);
  if ('error' in ext) return ext.error;
  const bidder = ext.value.bidder;
  if (bidder === null) return undefined;
  if (!isJsonObject(bidder)) return goObjectExpected(bidder);
  for (const key in bidder) {
    if (!Object.hasOwn(bidder, key) || key.toLowerCase() !== 'tagid') continue;
    const value = bidder[key];
    // A member set to undefined is not in the JSON the bidder decodes.
    if (value === undefined) continue;
    if (value !== null && typeof value !== 'string') return `cannot unmarshal openrtb_ext.ExtImpSonobi.TagID: expects " or n, but found ${JSON.stringify(value)[0]}`;
    shared.tagId = value ?? '';
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
