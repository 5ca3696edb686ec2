import {
  badInput,
  checkResponseStatus,
  compileEndpoint,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  isJsonObject,
  mediaTypeFromMtype,
  encodeAsOpenrtb2Request,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type RequestData,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

/** The host label of the standard endpoint, when the configured endpoint leaves it to the adapter (`{{.Host}}`). */
const STANDARD_HOST_LABEL = 'ssb-global';
/** Programmatic guaranteed requests always go here, as in Prebid Server. */
const PROGRAMMATIC_GUARANTEED_BASE = 'https://prebid-global.smartadserver.com';
const REQUEST_HEADERS = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };

/** The ids Equativ reads from an imp's params; all four are sent, zero when not given. */
interface SmartIds {
  siteId: number;
  pageId: number;
  formatId: number;
  networkId: number;
}

export function createSmartadserverBidder(config: BidderConfig): Bidder {
  const standardBase = standardEndpointBase(config.endpoint);
  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      if (request.imp.length === 0) return { requests: [], errors: [badInput('No impression in the bid request')] };
      const errors: BidderError[] = [];
      const accepted: Array<{ imp: Imp; ids: SmartIds }> = [];
      let programmaticGuaranteed = false;
      for (const imp of request.imp) {
        const params = readParams(imp.ext);
        if (typeof params === 'string') {
          errors.push(badInput(params));
          continue;
        }
        programmaticGuaranteed ||= params.programmaticGuaranteed;
        accepted.push({ imp, ids: params.ids });
      }
      if (accepted.length === 0) return { requests: [], errors };

      // One programmatic guaranteed imp sends the whole request to that endpoint, with the ids under another key.
      const idsKey = programmaticGuaranteed ? 'smartadserver' : 'bidder';
      const imps = accepted.map(({ imp, ids }) => {
        const { bidder: _params, ...ext } = imp.ext ?? {};
        return { ...imp, ext: { ...ext, [idsKey]: ids } };
      });
      let uri: { url: string } | { error: BidderError };
      if (programmaticGuaranteed) uri = endpointUrl(PROGRAMMATIC_GUARANTEED_BASE, 'ortb');
      else uri = 'error' in standardBase ? standardBase : endpointUrl(standardBase.url, 'api/bid', 'callerId=5');
      if ('error' in uri) return { requests: [], errors: [...errors, uri.error] };

      // The network id of the last readable imp is the publisher id, on a site that is created when the request has none.
      const networkId = accepted[accepted.length - 1]!.ids.networkId;
      const site = { ...request.site, publisher: { ...request.site?.publisher, id: String(networkId) } };
      return {
        // The body as Prebid Server re-encodes it: empty top-level fields are left out.
        requests: [{ method: 'POST', uri: uri.url, body: encodeAsOpenrtb2Request({ ...request, site, imp: imps }), headers: { ...REQUEST_HEADERS }, impIds: imps.map((imp) => imp.id) }],
        errors,
      };
    },

    makeBids(_request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;
      // Prebid Server returns its decoder's error as it is (a generic error): an empty body, or a bid that is not an
      // object, fails the whole answer.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) bids.push({ bid, type: mediaTypeFromMtype(bid.mtype) ?? 'banner' });
      }
      // Equativ bids in dollars: Prebid Server does not read the answer's currency either.
      return { currency: 'USD', bids };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Endpoint
// ---------------------------------------------------------------------------------------------------------------

/**
 * The standard calls' base URL: the configured endpoint, its `{{.Host}}` filled with the standard label. The shipped
 * template also admits the programmatic guaranteed host; an endpoint written out in full does not, so the core
 * refuses programmatic guaranteed calls then. A template with other macros cannot be completed.
 */
function standardEndpointBase(template: string): { url: string } | { error: BidderError } {
  try {
    return { url: compileEndpoint(template).expand({ Host: STANDARD_HOST_LABEL }) };
  } catch {
    return { error: badInput(`Malformed URL: ${template}.`) };
  }
}

/** The base with a path appended (cleaned as Go's `path.Join` does) and, when given, its query replaced. */
function endpointUrl(base: string, path: string, query?: string): { url: string } | { error: BidderError } {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return { error: badInput(`Malformed URL: ${base}.`) };
  }
  if (!url.host) return { error: badInput(`Malformed URL: ${base}.`) };
  url.pathname = joinPath(url.pathname, path);
  if (query !== undefined) url.search = `?${query}`;
  return { url: url.toString() };
}

/** Go's `path.Join`: the parts joined by slashes, then `.`/`..` segments, repeated and trailing slashes cleaned. */
function joinPath(...parts: string[]): string {
  const joined = parts.filter((part) => part !== '').join('/');
  const rooted = joined.startsWith('/');
  const segments: string[] = [];
  for (const segment of joined.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length > 0 && segments[segments.length - 1] !== '..') segments.pop();
      else if (!rooted) segments.push('..');
    } else {
      segments.push(segment);
    }
  }
  const cleaned = segments.join('/');
  return rooted ? `/${cleaned}` : cleaned || '.';
}

// ---------------------------------------------------------------------------------------------------------------
// Params
// ---------------------------------------------------------------------------------------------------------------

/** `ExtImpSmartadserverIn`'s fields by their JSON name in lower case. */
const PARAM_FIELDS: ReadonlyMap<string, keyof SmartIds | 'programmaticGuaranteed'> = new Map(
  (['siteId', 'pageId', 'formatId', 'networkId', 'programmaticGuaranteed'] as const).map((name) => [name.toLowerCase(), name]),
);

/**
 * The imp's params as Prebid Server reads them (MakeRequests, smartadserver.go): `imp.ext` into
 * `adapters.ExtImpBidder` (the SDK's `decodeExtImpBidder`: `prebid` a typed `ExtImpPrebid`, `ae` an int8; `null` the
 * zero value, without params), then its `bidder` into `ExtImpSmartadserverIn`: ids are integers,
 * `programmaticGuaranteed` a boolean, field names match regardless of case. Keys are read in the order they come: a
 * key that repeats one in another case overwrites it, a bad one fails the imp, and a `null` leaves what an earlier key
 * set (json-iterator skips `null` for a Go integer or boolean). Returns Prebid Server's error text when the imp cannot
 * be read.
 */
function readParams(impExt: unknown): { ids: SmartIds; programmaticGuaranteed: boolean } | string {
  const ext = decodeExtImpBidder(impExt);
  if ('error' in ext) return 'Error parsing bidderExt object';
  const bidder = ext.value.bidder;
  if (!isJsonObject(bidder) && bidder !== null) return 'Error parsing smartadserverExt parameters';
  const ids: SmartIds = { siteId: 0, pageId: 0, formatId: 0, networkId: 0 };
  let programmaticGuaranteed = false;
  for (const key in bidder ?? {}) {
    const value = bidder![key];
    const field = PARAM_FIELDS.get(key.toLowerCase());
    if (field === undefined || value === undefined || value === null) continue;
    if (field === 'programmaticGuaranteed') {
      if (typeof value !== 'boolean') return 'Error parsing smartadserverExt parameters';
      programmaticGuaranteed = value;
    } else {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return 'Error parsing smartadserverExt parameters';
      ids[field] = value;
    }
  }
  return { ids, programmaticGuaranteed };
}
