import {
  badInput,
  badServerResponse,
  bidResponseCurrency,
  checkResponseStatus,
  decodeExtBid,
  decodeOpenrtb2BidResponse,
  encodeAsOpenrtb2Request,
  encodeAsOpenrtb2SupplyChain,
  failedToUnmarshal,
  decodeGoFields,
  GO_STRING_FIELD,
  GoDecodeError,
  goString,
  goStruct,
  MEDIA_TYPES,
  readBidderParams,
  reencodeExtRequestPrebid,
  unknownError,
  type Bid,
  type Bidder,
  type GoField,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type Imp,
  type JsonObject,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type RequestData,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

/** The params struct Prebid Server decodes `imp.ext.bidder` into, as its decoder names it in errors. */
const PARAMS_TYPE = 'openrtb_ext.ExtImpAdf';

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
        // Go appends its decoder's error unwrapped: FailedToUnmarshal (14).
        if (typeof ext === 'string') errors.push(failedToUnmarshal(ext));
        else body.ext = ext;
      }
      // As in Prebid Server, the call goes even when no imp was readable.
      return { requests: [{ method: 'POST', uri: config.endpoint, body: encodeAsOpenrtb2Request(body), impIds: imps.map((imp) => imp.id) }], errors };
    },

    makeBids(_request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response, {
        text: (status) => `Unexpected status code: ${status}.`,
        badRequestText: 'Unexpected status code: 400. Bad request from publisher.',
      });
      if (statusResult) return statusResult;
      // Go returns its decoder's error as it is: a generic error.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const type = bidType(bid);
          if ('error' in type) errors.push(type.error);
          else bids.push({ bid, type: type.type });
        }
      }
      return { currency: bidResponseCurrency(decoded.value) ?? 'USD', bids, errors };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/**
 * `imp.ext.bidder` as Prebid Server decodes it into `ExtImpAdf` (field names match regardless of case, members in the
 * order they come, the first of the wrong JSON type failing, null is "not set"); returns the decoder's error text
 * when it cannot.
 */
function readParams(imp: Imp): AdfParams | string {
  // `imp.ext` into `adapters.ExtImpBidder` first (its `prebid` and `ae` typed), then `bidder` into `ExtImpAdf`.
  const read = readBidderParams(imp, PARAMS_TYPE);
  if ('error' in read) return read.error;
  const decoded = decodeGoFields(read.params, PARAMS_TYPE, PARAM_FIELDS);
  if ('error' in decoded) return decoded.error;
  const { mid, pricetype } = decoded.values;
  // `mid` is a json.Number, which Go's decoder (json-iterator) fills from any string as it is, or from a number's text.
  return { mid: mid === undefined ? '' : String(mid), priceType: typeof pricetype === 'string' ? pricetype : '' };
}

/** The JSON kinds of `ExtImpAdf`'s fields, with json-iterator's detail for a value a field cannot hold. */
const PARAM_FIELDS: Readonly<Record<string, GoField>> = {
  mid: { goName: 'MasterTagID', refuse: (value) => (typeof value === 'number' || typeof value === 'string' ? undefined : 'invalid number') },
  inv: {
    goName: 'InventorySourceID',
    refuse: (value) => (typeof value !== 'number' ? 'unexpected character: \ufffd' : Number.isInteger(value) ? undefined : 'can not decode float as int'),
  },
  mname: GO_STRING_FIELD('PlacementName'),
  pricetype: GO_STRING_FIELD('PriceType'),
};

/**
 * The request `ext` with Adform's price type (`pt`). Prebid Server decodes the ext into its `adfRequestExt`
 * (`openrtb_ext.ExtRequest` embedded, plus `pt`) and encodes that again: `prebid` (always written) with only the
 * members `ExtRequestPrebid` has, written as its struct writes them (nested structs too: `channel.version` always),
 * empty ones left out, `schain`, and `pt`; other keys are not sent. Returns the
 * decoder's text for an `ext` it cannot read (the first member of the wrong JSON type, in order); the request then
 * goes with its `ext` as it was.
 */
function withPriceType(ext: unknown, priceType: string): JsonObject | string {
  try {
    // Go decodes only an ext that has bytes; a `null` one is the zero value.
    const object = ext === undefined ? {} : goStruct(ext, []);
    let prebid: JsonObject = {};
    let schain: JsonObject | undefined;
    for (const key in object) {
      const value = object[key];
      switch (key.toLowerCase()) {
        case 'prebid':
          prebid = reencodeExtRequestPrebid(value, [...EMBEDDED_EXT_REQUEST, 'Prebid']);
          break;
        case 'schain':
          schain = value === null ? undefined : encodeAsOpenrtb2SupplyChain(goStruct(value, [...EMBEDDED_EXT_REQUEST, 'SChain']));
          break;
        case 'pt':
          goString(value, [`${REQUEST_EXT_TYPE}.PriceType`]);
          break;
      }
    }
    const rebuilt: JsonObject = { prebid };
    if (schain) rebuilt.schain = schain;
    rebuilt.pt = priceType;
    return rebuilt;
  } catch (err) {
    if (err instanceof GoDecodeError) return err.message;
    throw err;
  }
}

/** Adform's request ext type, and the chain json-iterator reports for a field of the `ExtRequest` embedded in it. */
const REQUEST_EXT_TYPE = 'adf.adfRequestExt';
const EMBEDDED_EXT_REQUEST = [`${REQUEST_EXT_TYPE}.ExtRequest`];

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/**
 * Adform states each bid's media type in `bid.ext.prebid.type`. Go decodes the whole ext into `openrtb_ext.ExtBid`
 * first (the SDK's `decodeExtBid`): an ext it cannot decode, a typed member of the wrong type at any depth, leaves the
 * bid without a type too.
 */
function bidType(bid: Bid): { type: MediaType } | { error: BidderError } {
  const ext = bid.ext === undefined ? undefined : decodeExtBid(bid.ext);
  const prebid = ext && 'value' in ext ? ext.value.prebid : undefined;
  if (prebid) {
    const type = prebid.type ?? '';
    return (MEDIA_TYPES as readonly string[]).includes(type as string) ? { type: type as MediaType } : { error: unknownError(`invalid BidType: ${String(type)}`) };
  }
  return { error: badServerResponse(`Failed to parse impression "${bid.impid}" mediatype`) };
}
