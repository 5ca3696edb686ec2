/**
 * MobileFuse bidder: one call with every banner, video or native imp, each tagged with its placement id and
 * stripped of `imp.ext` except SKAdNetwork data. Params that cannot be read fail the whole request. Bids are typed by
 * `mtype`.
 */
import {
  badServerResponse,
  isJsonObject,
  mediaTypeFromMtype,
  readBidderParams,
  readGoBidResponse,
  seatBids,
  unknownError,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

const HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };

/**
 * Prebid Server decodes every imp's params into one shared `ExtImpMobileFuse`, so a placement id an imp leaves out
 * is the previous imp's.
 */
interface ParamsState {
  placementId: number;
}

export function createMobilefuseBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const state: ParamsState = { placementId: 0 };
      // Imps are read until one has usable params; any failure before that fails the request.
      const errors: BidderError[] = [];
      for (const imp of request.imp) {
        const problem = readParamsInto(imp, state);
        if (problem === undefined) break;
        errors.push(unknownError(problem));
      }
      if (errors.length > 0) return { requests: [], errors };

      const imps: Imp[] = [];
      for (const imp of request.imp) {
        if (!imp.banner && !imp.video && !imp.native) continue;
        const problem = readParamsInto(imp, state);
        if (problem !== undefined) return { requests: [], errors: [unknownError(problem)] };
        const prepared: Imp = { ...imp, tagid: String(state.placementId) };
        if (isJsonObject(imp.ext) && imp.ext.skadn !== undefined) prepared.ext = { skadn: imp.ext.skadn };
        else delete prepared.ext;
        imps.push(prepared);
      }
      if (imps.length === 0) return { requests: [], errors: [unknownError('No valid imps')] };
      return {
        requests: [{ method: 'POST', uri: config.endpoint, body: { ...request, imp: imps }, headers: { ...HEADERS }, impIds: imps.map((imp) => imp.id) }],
      };
    },

    makeBids(_request: BidRequest, _sent, response: ResponseData): MakeBidsResult {
      const decoded = readGoBidResponse(response, { status: { text: (status) => `Unexpected status code: ${status}.` } });
      if ('result' in decoded) return decoded.result;

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid } of seatBids(decoded.body)) {
        if (!isJsonObject(bid)) continue;
        const type = mediaTypeFromMtype(bid.mtype, ['banner', 'video', 'native']);
        if (!type) {
          const mtype = typeof bid.mtype === 'number' ? bid.mtype : 0;
          errors.push(badServerResponse(`Unsupported MType "${mtype}" for impression ID "${String(bid.impid ?? '')}"`));
          continue;
        }
        // MobileFuse's bid extension is not passed on.
        const { ext: _dropped, ...rest } = bid;
        bids.push({ bid: rest as Bid, type });
      }
      return { currency: 'USD', bids, errors };
    },
  };
}

/** Reads an imp's placement id into the shared state; returns the problem when the params cannot be decoded. */
function readParamsInto(imp: Imp, state: ParamsState): string | undefined {
  const read = readBidderParams(imp, 'openrtb_ext.ExtImpMobileFuse');
  if ('error' in read) return read.error;
  const placementId = read.params.placement_id;
  if (placementId === undefined || placementId === null) return undefined;
  if (!Number.isSafeInteger(placementId)) return 'cannot unmarshal openrtb_ext.ExtImpMobileFuse.placement_id: expects an integer';
  state.placementId = placementId as number;
  return undefined;
}
