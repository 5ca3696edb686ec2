import {
  asGenericErrors,
  badInput,
  badServerResponse,
  bidResponseCurrency,
  checkResponseStatus,
  encodeAsOpenrtb2Bid,
  fieldIgnoringCase,
  isJsonObject,
  MEDIA_TYPES,
  readBidResponse,
  seatBids,
  unknownError,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Imp,
  type JsonObject,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type RequestData,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

interface AdfParams {
  /** The master tag id as written (Go's `json.Number`), empty when absent. */
  mid: string;
  priceType: string;
}

export function createAdfBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const errors: BidderError[] = [];
      const imps: Imp[] = [];
      let priceType = '';
      for (const imp of request.imp) {
        const params = readParams(imp);
        if (typeof params === 'string') {
          errors.push(badInput(params));
          continue;
        }
        const { tagid: _previous, ...rest } = imp;
        imps.push(params.mid === '' ? rest : { ...rest, tagid: params.mid });
        // When imps disagree on the price type, the first one stated wins.
        if (priceType === '') priceType = params.priceType;
      }

      const body: BidRequest = { ...request, imp: imps };
      if (priceType !== '') {
        const ext = withPriceType(request.ext, priceType);
        if (typeof ext === 'string') errors.push(unknownError(ext));
        else body.ext = ext;
      }
      // As in Prebid Server, the call goes even when no imp was readable.
      return { requests: [{ method: 'POST', uri: config.endpoint, body, impIds: imps.map((imp) => imp.id) }], errors };
    },

    makeBids(_request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response, {
        text: (status) => `Unexpected status code: ${status}.`,
        badRequestText: 'Unexpected status code: 400. Bad request from publisher.',
      });
      if (statusResult) return statusResult;
      // Only the body's errors are reported as PBS's decoder reports them.
      const read = readBidResponse(response);
      if ('result' in read) return { bids: [], errors: asGenericErrors(read.result.errors) };

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid } of seatBids(read.body)) {
        if (!isJsonObject(bid)) return { bids: [], errors: [unknownError('cannot unmarshal the response: a bid is not an object')] };
        const type = bidType(bid);
        if ('error' in type) errors.push(type.error);
        else bids.push({ bid: encodeAsOpenrtb2Bid(bid), type: type.type });
      }
      return { currency: bidResponseCurrency(read.body) ?? 'USD', bids, errors };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/**
 * `imp.ext.bidder` as Prebid Server decodes it (field names match regardless of case, null is "not set"); returns
 * the error text when it cannot.
 */
function readParams(imp: Imp): AdfParams | string {
  const bidder = isJsonObject(imp.ext) ? fieldIgnoringCase(imp.ext, 'bidder') : undefined;
  if (bidder === undefined) return `imp ${imp.id}: cannot unmarshal imp.ext.bidder: unexpected end of JSON input`;
  const params: AdfParams = { mid: '', priceType: '' };
  if (bidder === null) return params;
  if (!isJsonObject(bidder)) return `imp ${imp.id}: cannot unmarshal imp.ext.bidder: expected an object`;

  const mid = fieldIgnoringCase(bidder, 'mid');
  if (typeof mid === 'number') params.mid = String(mid);
  else if (typeof mid === 'string' && (mid === '' || /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(mid))) params.mid = mid;
  else if (mid != null) return `imp ${imp.id}: cannot unmarshal imp.ext.bidder.mid: expected a number`;

  const inv = fieldIgnoringCase(bidder, 'inv');
  if (inv != null && !(typeof inv === 'number' && Number.isSafeInteger(inv))) return `imp ${imp.id}: cannot unmarshal imp.ext.bidder.inv: expected an integer`;
  for (const key of ['mname', 'priceType'] as const) {
    const value = fieldIgnoringCase(bidder, key);
    if (value != null && typeof value !== 'string') return `imp ${imp.id}: cannot unmarshal imp.ext.bidder.${key}: expected a string`;
  }
  const priceType = fieldIgnoringCase(bidder, 'priceType');
  if (typeof priceType === 'string') params.priceType = priceType;
  return params;
}

/**
 * The request `ext` with Adform's price type (`pt`). Prebid Server rebuilds it from the request extension it knows
 * (`prebid`, always written, and `schain`), so other keys are not sent. Returns the error text for an `ext` it
 * cannot read; the request then goes with its `ext` as it was.
 */
function withPriceType(ext: unknown, priceType: string): JsonObject | string {
  if (ext === undefined || ext === null) return { prebid: {}, pt: priceType };
  if (!isJsonObject(ext)) return 'cannot unmarshal request.ext: expected an object';
  const prebid = fieldIgnoringCase(ext, 'prebid');
  const schain = fieldIgnoringCase(ext, 'schain');
  if (prebid != null && !isJsonObject(prebid)) return 'cannot unmarshal request.ext.prebid: expected an object';
  if (schain != null && !isJsonObject(schain)) return 'cannot unmarshal request.ext.schain: expected an object';
  const rebuilt: JsonObject = { prebid: prebid ?? {} };
  if (schain != null) rebuilt.schain = schain;
  rebuilt.pt = priceType;
  return rebuilt;
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/** Adform states each bid's media type in `bid.ext.prebid.type`. */
function bidType(bid: JsonObject): { type: MediaType } | { error: BidderError } {
  const prebid = isJsonObject(bid.ext) ? fieldIgnoringCase(bid.ext, 'prebid') : undefined;
  if (isJsonObject(prebid)) {
    const type = fieldIgnoringCase(prebid, 'type') ?? '';
    if (typeof type === 'string') {
      return (MEDIA_TYPES as readonly string[]).includes(type) ? { type: type as MediaType } : { error: unknownError(`invalid BidType: ${type}`) };
    }
  }
  return { error: badServerResponse(`Failed to parse impression "${String(bid.impid ?? '')}" mediatype`) };
}
