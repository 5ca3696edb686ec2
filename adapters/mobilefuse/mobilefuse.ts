/**
 * MobileFuse bidder: one call with every banner, video or native imp, each tagged with its placement id and
 * stripped of `imp.ext` except SKAdNetwork data. Params that cannot be read fail the whole request. Bids are typed by
 * `mtype`.
 */
import {
  badServerResponse,
  checkResponseStatus,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  fieldIgnoringCase,
  isJsonObject,
  mediaTypeFromMtype,
  encodeAsOpenrtb2Request,
  readBidderParams,
  unknownError,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
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
        errors.push(failedToUnmarshal(problem));
      }
      if (errors.length > 0) return { requests: [], errors };

      const imps: Imp[] = [];
      for (const imp of request.imp) {
        if (!imp.banner && !imp.video && !imp.native) continue;
        const problem = readParamsInto(imp, state);
        if (problem !== undefined) return { requests: [], errors: [failedToUnmarshal(problem)] };
        const prepared: Imp = { ...imp, tagid: String(state.placementId) };
        // Go reads `skadn` into a raw field: any case of the key, an explicit null kept.
        const skadn = isJsonObject(imp.ext) ? fieldIgnoringCase(imp.ext, 'skadn') : undefined;
        if (skadn !== undefined) prepared.ext = { skadn };
        else delete prepared.ext;
        imps.push(prepared);
      }
      if (imps.length === 0) return { requests: [], errors: [unknownError('No valid imps')] };
      return {
        requests: [{ method: 'POST', uri: config.endpoint, body: encodeAsOpenrtb2Request({ ...request, imp: imps }), headers: { ...HEADERS }, impIds: imps.map((imp) => imp.id) }],
      };
    },

    makeBids(_request: BidRequest, _sent, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response, { text: (status) => `Unexpected status code: ${status}.` });
      if (statusResult) return statusResult;
      // Go decodes the whole answer into openrtb2.BidResponse: one field of the wrong type fails it, unknown fields go.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const type = mediaTypeFromMtype(bid.mtype, ['banner', 'video', 'native']);
          if (!type) {
            errors.push(badServerResponse(`Unsupported MType "${bid.mtype ?? 0}" for impression ID "${bid.impid}"`));
            continue;
          }
          // MobileFuse's bid extension is not passed on.
          const { ext: _dropped, ...passedOn } = bid;
          bids.push({ bid: passedOn, type });
        }
      }
      // The answer's own `cur` is not read: MobileFuse bids in dollars.
      return { currency: 'USD', bids, errors };
    },
  };
}

/** Reads an imp's placement id into the shared state; returns the problem when the params cannot be decoded. */
function readParamsInto(imp: Imp, state: ParamsState): string | undefined {
  const read = readBidderParams(imp, 'openrtb_ext.ExtImpMobileFuse');
  if ('error' in read) return read.error;
  const placementId = fieldIgnoringCase(read.params, 'placement_id');
  // null leaves a Go int as it was: the previous imp's placement.
  if (placementId === undefined || placementId === null) return undefined;
  if (typeof placementId !== 'number') return `${PLACEMENT_ID_ERROR}unexpected character: \ufffd`;
  if (!Number.isInteger(placementId)) return `${PLACEMENT_ID_ERROR}can not decode float as int`;
  state.placementId = placementId;
  return undefined;
}

/**
 * How PBS's decoder (json-iterator, through jsonutil) names a `placement_id` it cannot read as Go's int: the struct
 * field, then its reader's complaint. A value that does not start like a number is "unexpected character" and a byte
 * 0xff, which reaches a client as U+FFFD once the message is written as JSON.
 */
const PLACEMENT_ID_ERROR = 'cannot unmarshal openrtb_ext.ExtImpMobileFuse.PlacementId: ';
