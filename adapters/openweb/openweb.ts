/**
 * OpenWeb bidder: the whole auction share goes to OpenWeb in one call, unchanged, addressed to the publisher
 * (organisation) named by the first imp that has one. Bids must say their markup type in `bid.mtype`.
 */
import {
  badInput,
  badServerResponse,
  checkResponseStatus,
  compileEndpoint,
  decodeBidderParams,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  fieldIgnoringCase,
  mediaTypeFromMtype,
  encodeAsOpenrtb2Request,
  readBidderParams,
  unknownError,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type Imp,
  type JsonObject,
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
      return { requests: [{ method: 'POST', uri, body: encodeAsOpenrtb2Request(request), headers: { ...HEADERS }, impIds }] };
    },

    makeBids(_request, _sent, response) {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;
      // Go returns its decoder's error as it is; one field of the wrong type fails the whole answer.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const type = mediaTypeFromMtype(bid.mtype, ['banner', 'video']);
          if (type) bids.push({ bid, type });
          else errors.push(badServerResponse(`unsupported MType ${bid.mtype ?? 0}`));
        }
      }
      const currency = decoded.value.cur || 'USD';
      return errors.length > 0 ? { currency, bids, errors } : { currency, bids };
    },
  };
}

/**
 * The publisher the call is for: imps are read in order, each must have a placement id, and the first with an `org`
 * (trimmed) or a non-zero `aid` decides. Errors read as Prebid Server's, its decoder's text wrapped by the step.
 */
function publisherOf(request: BidRequest): { id: string } | { error: string } {
  for (const imp of request.imp) {
    const read = readImpParams(imp);
    if ('error' in read) return read;
    const params = read.params;
    const placementId = fieldIgnoringCase(params, 'placementId') as string | null | undefined;
    const org = fieldIgnoringCase(params, 'org') as string | null | undefined;
    const aid = fieldIgnoringCase(params, 'aid') as number | null | undefined;

    if (!placementId) return { error: 'no placement id supplied' };
    if (org) return { id: org.trim() };
    if (aid) return { id: String(aid) };
  }
  return { error: 'no org or aid supplied' };
}

const PARAMS_TYPE = 'openrtb_ext.ExtImpOpenWeb';

/** `ExtImpOpenWeb`'s fields: JSON key, Go field name, Go type. */
const PARAM_FIELDS = [
  { key: 'aid', goName: 'Aid', kind: 'int' },
  { key: 'org', goName: 'Org', kind: 'string' },
  { key: 'placementId', goName: 'PlacementID', kind: 'string' },
] as const;

/** The imp's params in Go's two steps: `imp.ext` (a `null` one is empty), then its `bidder` and the fields in it. */
function readImpParams(imp: Imp): { params: JsonObject } | { error: string } {
  const read = imp.ext === null ? decodeBidderParams(undefined, PARAMS_TYPE) : readBidderParams(imp, PARAMS_TYPE);
  if ('error' in read) {
    // Which decode failed: `imp.ext` into `adapters.ExtImpBidder` (`prebid` and `ae` typed too), or its `bidder`.
    const step = 'error' in decodeExtImpBidder(imp.ext) ? 'bidderExt' : 'ExtImpOpenWeb';
    return { error: `unmarshal ${step}: ${read.error}` };
  }
  const problem = firstFieldError(read.params);
  return problem === undefined ? read : { error: `unmarshal ExtImpOpenWeb: ${problem}` };
}

/**
 * The first param, in the order the JSON gives them, that Go cannot decode into its field, worded as PBS's decoder
 * (json-iterator, through jsonutil) words it. Its int reader names a value that does not start like a number by the
 * byte 0xff, which reaches a client as U+FFFD once the message is written as JSON.
 */
function firstFieldError(params: JsonObject): string | undefined {
  for (const key of Object.keys(params)) {
    const field = PARAM_FIELDS.find((candidate) => candidate.key.toLowerCase() === key.toLowerCase());
    const value = params[key];
    if (!field || value === null) continue;
    const prefix = `cannot unmarshal ${PARAMS_TYPE}.${field.goName}: `;
    if (field.kind === 'string') {
      if (typeof value !== 'string') return `${prefix}expects " or n, but found ${JSON.stringify(value)[0]}`;
    } else if (typeof value !== 'number') {
      return `${prefix}unexpected character: \ufffd`;
    } else if (!Number.isInteger(value)) {
      return `${prefix}can not decode float as int`;
    }
  }
  return undefined;
}
