import {
  badInput,
  ErrorCode,
  GavelError,
  isJsonObject,
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
  type Publisher,
  type RequestData,
  type RequestInfo,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

const REQUEST_HEADERS = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };
/** MSN pages may name their own tag code in `imp.ext.data.tag_code`. */
const MSN_DOMAIN = 'msn.com';

/**
 * The publishers the host may send to TripleLift Native, from `extra.publisher_whitelist` (Prebid Server's
 * `extra_info`). A malformed list stops boot, as Prebid Server's builder does.
 */
function publisherAllowlist(extra: Record<string, unknown>): Set<string> {
  const list = extra.publisher_whitelist;
  if (list === undefined || list === null) return new Set();
  if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) {
    throw new GavelError(ErrorCode.BidderConfigInvalid, 'invalid extra info: publisher_whitelist must be a list of strings');
  }
  return new Set(list);
}

export function createTripleliftNativeBidder(config: BidderConfig): Bidder {
  const uri = config.endpoint;
  const allowlist = publisherAllowlist(config.extra);

  return {
    makeRequests(request: BidRequest, info: RequestInfo): MakeRequestsResult {
      const errors: BidderError[] = [];
      const imps: Imp[] = [];
      for (const imp of request.imp) {
        const built = buildImp(imp, request, info);
        if ('error' in built) errors.push(built.error);
        else imps.push(built.imp);
      }
      // A publisher the host did not allowlist gets nothing, and only this error.
      if (!allowlist.has(effectivePublisherId(request))) return { requests: [], errors: [unknownError('Unsupported publisher for triplelift_native')] };
      if (imps.length === 0) return { requests: [], errors: [...errors, unknownError('No valid impressions for triplelift')] };
      const body: BidRequest = { ...request, imp: imps };
      return { requests: [{ method: 'POST', uri, body, headers: { ...REQUEST_HEADERS }, impIds: imps.map((imp) => imp.id) }], errors };
    },

    makeBids(_request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const parsed = readGoBidResponse(response, { decodeError: (detail) => unknownError(`cannot read the bid response: ${detail}`) });
      if ('result' in parsed) return parsed.result;
      const body = parsed.body;
      const bids: TypedBid[] = [];
      // Every bid is native, and in USD.
      for (const { bid } of seatBids(body)) if (isJsonObject(bid)) bids.push({ bid: bid as Bid, type: 'native' });
      return { currency: 'USD', bids };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/** The imp with its tag id and its floor in USD; an error when it cannot go. */
function buildImp(imp: Imp, request: BidRequest, info: RequestInfo): { imp: Imp } | { error: BidderError } {
  const ext = imp.ext;
  if (!isJsonObject(ext)) return { error: unknownError('cannot read imp.ext: it is not a JSON object') };
  const tagCode = readTagCode(ext.data);
  if (tagCode === undefined) return { error: unknownError('cannot read imp.ext.data: tag_code must be a string in an object') };
  const params = ext.bidder;
  if (!isJsonObject(params)) return { error: unknownError('cannot read the triplelift_native params: imp.ext.bidder is not a JSON object') };
  const { inventoryCode, floor } = params;
  if (inventoryCode !== undefined && inventoryCode !== null && typeof inventoryCode !== 'string') {
    return { error: unknownError('cannot read the triplelift_native params: inventoryCode must be a string') };
  }
  if (floor !== undefined && floor !== null && typeof floor !== 'number') return { error: unknownError('cannot read the triplelift_native params: floor must be a number') };
  if (!imp.native) return { error: unknownError('no native object specified') };

  const tagid = tagCode !== '' && onMsn(request) ? tagCode : typeof inventoryCode === 'string' ? inventoryCode : '';
  const built: Imp = { ...imp };
  if (tagid !== '') built.tagid = tagid;
  else delete built.tagid;
  if (typeof floor === 'number') built.bidfloor = floor;
  const priced = floorInUsd(built, info);
  return typeof priced === 'string' ? { error: badInput(priced) } : { imp: priced };
}

/** `imp.ext.data.tag_code`, '' when absent; undefined when `data` cannot be read. */
function readTagCode(data: unknown): string | undefined {
  if (data === undefined || data === null) return '';
  if (!isJsonObject(data)) return undefined;
  const tagCode = data.tag_code;
  if (tagCode === undefined || tagCode === null) return '';
  return typeof tagCode === 'string' ? tagCode : undefined;
}

function onMsn(request: BidRequest): boolean {
  return request.site?.publisher?.domain === MSN_DOMAIN || request.app?.publisher?.domain === MSN_DOMAIN;
}

/** TripleLift takes floors in USD: a positive floor in another currency is converted, and the currency says USD. */
function floorInUsd(imp: Imp, info: RequestInfo): Imp | string {
  if (!(typeof imp.bidfloor === 'number' && imp.bidfloor > 0)) return imp;
  const currency = typeof imp.bidfloorcur === 'string' ? imp.bidfloorcur : '';
  if (currency === '' || currency.toUpperCase() === 'USD') return { ...imp, bidfloorcur: 'USD' };
  try {
    return { ...imp, bidfloor: info.convertCurrency(imp.bidfloor, currency, 'USD'), bidfloorcur: 'USD' };
  } catch (err) {
    return `Unable to convert bid floor from ${currency} to USD: ${(err as Error).message}`;
  }
}

/** The app's publisher (else the site's): its `ext.prebid.parentAccount`, else its id, else "unknown". */
function effectivePublisherId(request: BidRequest): string {
  const publisher: Publisher | undefined = request.app ? request.app.publisher : request.site?.publisher;
  if (!isJsonObject(publisher)) return 'unknown';
  const prebid = isJsonObject(publisher.ext) ? publisher.ext.prebid : undefined;
  const parentAccount = isJsonObject(prebid) ? prebid.parentAccount : undefined;
  if (typeof parentAccount === 'string' && parentAccount !== '') return parentAccount;
  return typeof publisher.id === 'string' && publisher.id !== '' ? publisher.id : 'unknown';
}
