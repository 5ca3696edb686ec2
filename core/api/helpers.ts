import { badServerResponse, type BidderError } from './errors.js';
import { checkResponseStatus, type ResponseStatusRules } from './go-compat.js';
import type { RequestData, ResponseData } from './adapter.js';
import { MTYPE_TO_MEDIA_TYPE, type Bid, type Imp, type MediaType } from './openrtb.js';

/** True when a bidder answered "no bid" (HTTP 204). */
export function isNoBid(response: ResponseData): boolean {
  return response.status === 204;
}

/**
 * Checks a bidder's HTTP status and parses its JSON body. 204 is a no-bid (`{ noBid: true }`); any other non-2xx,
 * an empty body or an unparseable body is a "bad server response" error (code 3).
 */
export function readJsonResponse<T>(response: ResponseData): { value?: T; noBid?: true; error?: BidderError } {
  if (response.status === 204) return { noBid: true };
  if (response.status < 200 || response.status >= 300) {
    return { error: badServerResponse(`Unexpected status code: ${response.status}. Run with request.debug = 1 for more info`) };
  }
  if (!response.body || response.body.trim() === '') return { noBid: true };
  try {
    return { value: JSON.parse(response.body) as T };
  } catch (err) {
    return { error: badServerResponse(`Bad server response: ${(err as Error).message}`) };
  }
}

/** The media types an imp offers, in a fixed order. */
export function impMediaTypes(imp: Imp): MediaType[] {
  const types: MediaType[] = [];
  if (imp.banner) types.push('banner');
  if (imp.video) types.push('video');
  if (imp.audio) types.push('audio');
  if (imp.native) types.push('native');
  return types;
}

/**
 * The imps of the call an answer is for, as the adapter sent them; undefined when its body holds no imp list. Go
 * adapters that replace `request.Imp` with the imps they kept (sovrn, gumgum, grid) look bids up among those in
 * MakeBids, which Prebid Server hands the same request MakeRequests changed.
 */
export function impsOfSentRequest(sent: RequestData): Imp[] | undefined {
  const body = sent.body;
  return isJsonObject(body) && Array.isArray(body.imp) ? body.imp.filter((imp): imp is Imp => isJsonObject(imp)) : undefined;
}

/** A bid's media type: from `bid.mtype` when set, else the imp's only media type, else undefined. */
export function bidMediaType(bid: Bid, imp: Imp | undefined): MediaType | undefined {
  if (bid.mtype !== undefined && MTYPE_TO_MEDIA_TYPE[bid.mtype]) return MTYPE_TO_MEDIA_TYPE[bid.mtype];
  if (!imp) return undefined;
  const types = impMediaTypes(imp);
  return types.length === 1 ? types[0] : undefined;
}

/** A structured deep copy for adapters that must change a request without touching the caller's object. */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}

export type JsonObject = Record<string, unknown>;

/**
 * What a bidder or seat name from a request or a bid (an alias, an alternate bidder code) may be: a letter or digit,
 * then up to 63 letters, digits, `_`, `.` or `-`. Such names become object keys and targeting key suffixes: this
 * keeps out `__proto__`, separators and markup.
 */
export const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Whether an object has any own enumerable key, without building the array of its keys. Hot-path code walks objects
 * with `for (const key in object)` and skips keys that are not `Object.hasOwn`: the keys of Object.keys/entries, in
 * the same order (`for...in` alone would also visit inherited enumerable keys).
 */
export function hasOwnKeys(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

/**
 * A shallow copy of `source` with `fields` set over it: how hot-path code adds members to a copy. `{ ...source, field }`
 * (or a spread copy that then gains a property) costs about a microsecond more whenever `field` is new to `source`:
 * V8 gives each such copy a hidden class of its own, where a copy made by `Object.assign` takes new properties along
 * shared transitions.
 */
export function withFields<T extends object>(source: T, fields: Partial<T>): T {
  return Object.assign(Object.assign({}, source), fields);
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a request option the service keeps in its namespace: `request.ext.svc.<path>`, else
 * `request.ext.prebid.<path>` (the core has already folded both into the one the request used).
 */
export function requestOption(request: { ext?: unknown }, ...path: string[]): unknown {
  const ext = isJsonObject(request.ext) ? request.ext : {};
  for (const namespace of ['svc', 'prebid']) {
    let value: unknown = ext[namespace];
    for (const key of path) value = isJsonObject(value) ? value[key] : undefined;
    if (value !== undefined) return value;
  }
  return undefined;
}

/** What `readBidResponse` found: the response object, or the result to return as it is (no bid, or an error). */
export type BidResponseRead = { body: JsonObject & { seatbid?: unknown; cur?: unknown } } | { result: { bids: []; errors?: BidderError[] } };

/**
 * The checks every OpenRTB-speaking adapter makes on an answer: 204 or an empty body is a no-bid; 400 means the
 * bidder rejected our request (bad input, code 2); any other non-2xx, an unparseable body, or a body that is not a
 * JSON object is a bad server response (code 3). With `statusRules`, the status is checked as a Prebid Server (Go)
 * adapter checks it instead (`checkResponseStatus`): only a 200 goes on to the body.
 */
export function readBidResponse(response: ResponseData, statusRules?: ResponseStatusRules): BidResponseRead {
  if (statusRules) {
    const statusResult = checkResponseStatus(response, statusRules);
    if (statusResult) return { result: statusResult as { bids: []; errors?: BidderError[] } };
  }
  if (response.status === 400) {
    return { result: { bids: [], errors: [{ code: 2, message: 'Unexpected status code: 400. Run with request.debug = 1 for more info' }] } };
  }
  const read = readJsonResponse<unknown>(response);
  if (read.error) return { result: { bids: [], errors: [read.error] } };
  if (read.noBid) return { result: { bids: [] } };
  if (!isJsonObject(read.value)) return { result: { bids: [], errors: [badServerResponse('Bad server response: the body is not a JSON object')] } };
  return { body: read.value };
}

/** Every entry of `seatbid[].bid[]` with the seat it came in, skipping seatbids that are not objects with a bid array. */
export function seatBids(body: { seatbid?: unknown }): Array<{ bid: unknown; seat?: string }> {
  const found: Array<{ bid: unknown; seat?: string }> = [];
  for (const seatbid of Array.isArray(body.seatbid) ? body.seatbid : []) {
    if (!isJsonObject(seatbid) || !Array.isArray(seatbid.bid)) continue;
    const seat = typeof seatbid.seat === 'string' ? seatbid.seat : undefined;
    for (const bid of seatbid.bid) found.push({ bid, seat });
  }
  return found;
}

/** Keys of `imp.ext` that are never bidder names (reference-behaviour section 1). */
export const RESERVED_IMP_EXT_KEYS: ReadonlySet<string> = new Set(['prebid', 'svc', 'context', 'data', 'gpid', 'skadn', 'tid', 'ae', 'igs', 'bidder']);

/** A VAST 3.0 wrapper pointing at `adTagUri`, for video bids that carry a `nurl` but no markup. */
export function vastWrapper(adTagUri: string): string {
  // "]]>" would end the CDATA section early; split it across two sections.
  const cdata = adTagUri.replaceAll(']]>', ']]]]><![CDATA[>');
  return (
    '<VAST version="3.0"><Ad><Wrapper><AdSystem>prebid.org wrapper</AdSystem>' +
    `<VASTAdTagURI><![CDATA[${cdata}]]></VASTAdTagURI><Impression></Impression><Creatives></Creatives>` +
    '</Wrapper></Ad></VAST>'
  );
}
