/**
 * Go-faithfulness helpers for adapters ported from Prebid Server (PBS). PBS's adapters are Go: they decode JSON into
 * typed structs (field names matched ignoring case, `null` as the zero value, a value of the wrong JSON type an
 * error) and encode structs back (fields tagged `omitempty` left out when zero or empty, unknown fields gone). A port
 * that reproduces what PBS sends and answers needs the same rules; these helpers hold them once, so adapters do not
 * each carry a copy.
 *
 * Small and composable on purpose: an adapter takes the ones its Go original uses, with the texts it reports.
 */
import { GoDecodeError, goBool, goFloat, goFoundByte, goInt, goInt8, goMap, goObjectExpected, goSlice, goString, goStruct } from './go-decoding.js';
import { BidderErrorCode, failedToUnmarshal, unknownError, type BidderError } from './errors.js';
import type { MakeBidsResult, RequestInfo, ResponseData } from './adapter.js';
import { MTYPE_TO_MEDIA_TYPE, type Bid, type BidRequest, type Imp, type MediaType } from './openrtb.js';
import { isJsonObject, type JsonObject } from './helpers.js';

// ---------------------------------------------------------------------------------------------------------------
// Field names
// ---------------------------------------------------------------------------------------------------------------

/**
 * A member as Go's JSON decoder fills a struct field from it: the key equal to `name` ignoring case, and when several
 * keys match, the last one (each key decoded overwrites the field). Undefined when no key matches.
 */
export function fieldIgnoringCase(object: JsonObject, name: string): unknown {
  const wanted = name.toLowerCase();
  let found: unknown;
  for (const key in object) if (Object.hasOwn(object, key) && key.toLowerCase() === wanted) found = object[key];
  return found;
}

// ---------------------------------------------------------------------------------------------------------------
// Bidder params
// ---------------------------------------------------------------------------------------------------------------

/**
 * `imp.ext.bidder` as a Go adapter decodes it with `jsonutil.Unmarshal` into its params struct: absent params give the
 * decoder nothing to read, `null` is the zero value (an empty object here), anything but an object fails, in
 * json-iterator's words (`expect { or n, but found <first byte>`, NUL for nothing). `paramsType` (e.g.
 * `openrtb_ext.ExtImpSovrn`) names the struct; a failure at the top of it does not name it.
 */
export function decodeBidderParams(bidder: unknown, _paramsType: string): { params: JsonObject } | { error: string } {
  if (bidder === null) return { params: {} };
  if (!isJsonObject(bidder)) return { error: goObjectExpected(bidder) };
  return { params: bidder };
}

/**
 * The imp's params, read in the two steps of a Go adapter: `imp.ext` into `adapters.ExtImpBidder`
 * (`decodeExtImpBidder`, whose error is returned as it is), then its `bidder` with `decodeBidderParams`.
 */
export function readBidderParams(imp: Imp, paramsType: string): { params: JsonObject } | { error: string } {
  const ext = decodeExtImpBidder(imp.ext);
  if ('error' in ext) return ext;
  return decodeBidderParams(ext.value.bidder, paramsType);
}

/** `adapters.ExtImpBidder` once decoded: `prebid` and `bidder` as written (undefined when absent), `ae` as a number. */
export interface ExtImpBidder {
  prebid?: JsonObject;
  bidder?: unknown;
  ae: number;
}

/**
 * `imp.ext` decoded as PBS's adapters decode it with `jsonutil.Unmarshal` into `adapters.ExtImpBidder`
 * (adapters/bidder.go): an object (`null` is the zero value; absent, the decoder has nothing to read), whose members
 * are matched to the struct's fields ignoring case and decoded in the order written, the first that does not fit
 * failing the whole ext with json-iterator's text as `jsonutil` cuts it. `bidder` is raw JSON (anything goes);
 * `prebid` is a `*openrtb_ext.ExtImpPrebid` (openrtb_ext/imp.go), each of its typed members checked down to their
 * Go types; `ae` is an `AuctionEnvironmentType`, an int8. E.g. `{"prebid": {"adunitcode": 5}}` gives
 * `cannot unmarshal openrtb_ext.ExtImpPrebid.AdUnitCode: expects " or n, but found 5`.
 */
export function decodeExtImpBidder(ext: unknown): { value: ExtImpBidder } | { error: string } {
  try {
    const object = goStruct(ext, []);
    const read = readGoStruct(object, 'adapters.ExtImpBidder', EXT_IMP_BIDDER_FIELDS, []);
    const value: ExtImpBidder = { ae: (read.ae as number | undefined) ?? 0 };
    const prebid = fieldIgnoringCase(object, 'prebid');
    if (isJsonObject(prebid)) value.prebid = prebid;
    if ('bidder' in read) value.bidder = read.bidder;
    return { value };
  } catch (err) {
    if (err instanceof GoDecodeError) return { error: err.message };
    throw err;
  }
}

/**
 * One member (`prebid` or `ae`) of an `adapters.ExtImpBidder` embedded in an adapter's own imp ext struct, read as
 * `decodeExtImpBidder` reads it: undefined when it fits (or is absent), else the decoder's text. json-iterator names a
 * failure at the top of an embedded struct's field by the field's own name (`Prebid`, `AuctionEnvironment`), not by
 * its struct's (a pointer embedding adds no link either); one deeper in `prebid` names the inner struct as usual.
 */
export function embeddedExtImpBidderError(name: 'prebid' | 'ae', value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const decoded = decodeExtImpBidder({ [name]: value });
  return 'error' in decoded ? decoded.error.replace(/^cannot unmarshal adapters\.ExtImpBidder\./, 'cannot unmarshal ') : undefined;
}

/**
 * `imp.ext.prebid` as Prebid Server's auction endpoint reads it before anything else (parseImpInfo,
 * endpoints/openrtb2/auction.go): the value `jsonparser.Get` finds (a string without its quotes, so the decoder meets
 * its first character) decoded with `jsonutil.Unmarshal` into `openrtb_ext.ExtImpPrebid`. The decoder's text, e.g.
 * `cannot unmarshal openrtb_ext.ExtImpPrebid.Options: expect { or n, but found "`, or undefined when it fits.
 */
export function extImpPrebidDecodeProblem(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  // At the top the decoder's text is its detail alone.
  if (typeof value === 'string') return `expect { or n, but found ${JSON.stringify(value).slice(1, -1)[0] ?? '\u0000'}`;
  try {
    readGoStruct(goStruct(value, []), 'openrtb_ext.ExtImpPrebid', EXT_IMP_PREBID_FIELDS, []);
    return undefined;
  } catch (err) {
    if (err instanceof GoDecodeError) return err.message;
    throw err;
  }
}

/**
 * Every imp's `ext.<ns>` (for each of `namespaces`) that `extImpPrebidDecodeProblem` refuses, as Prebid Server's
 * endpoint refuses a request with all of them before it reads anything else: the decoder's words, then where
 * (`cannot unmarshal openrtb_ext.ExtImpPrebid.Options: expect { or n, but found " (in request.imp[0].ext.prebid)`).
 * Undefined when every one decodes.
 */
export function undecodableImpOptions(imps: unknown, namespaces: readonly string[]): string[] | undefined {
  if (!Array.isArray(imps)) return undefined;
  let problems: string[] | undefined;
  for (let index = 0; index < imps.length; index++) {
    const imp: unknown = imps[index];
    const ext = isJsonObject(imp) ? imp.ext : undefined;
    if (!isJsonObject(ext)) continue;
    for (const namespace of namespaces) {
      const problem = extImpPrebidDecodeProblem(ext[namespace]);
      if (problem !== undefined) (problems ??= []).push(`${problem} (in request.imp[${index}].ext.${namespace})`);
    }
  }
  return problems;
}

/**
 * A struct field: its Go name, and the reader of its Go type (throws `GoDecodeError` with the chain of links). The
 * links are a stack the struct readers push to and pop from, so a value that fits costs no copy of the chain.
 */
type GoFieldReader = readonly [goName: string, read: (value: unknown, links: string[]) => unknown];

/**
 * Members matched ignoring case, in the order written, each read with its field's reader; unknown members skipped.
 * `links` is pushed to and popped from: callers pass a fresh array.
 */
function readGoStruct(object: JsonObject, goType: string, fields: Readonly<Record<string, GoFieldReader>>, links: string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const name = key.toLowerCase();
    // Only the struct's own fields: a member named `constructor` or `toString` is one Go skips.
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (field === undefined) continue;
    links.push(`${goType}.${field[0]}`);
    values[name] = field[1](object[key], links);
    links.pop();
  }
  return values;
}

/** A `*Struct` field: `null` is nil, anything else an object whose fields are read. */
const structField = (goType: string, fields: Readonly<Record<string, GoFieldReader>>) => (value: unknown, links: string[]): unknown =>
  value === null ? undefined : readGoStruct(goStruct(value, links), goType, fields, links);

/** Raw JSON (`json.RawMessage`): any value, kept as written. */
const rawField = (value: unknown): unknown => value;

const STORED_ID_FIELDS: Readonly<Record<string, GoFieldReader>> = { id: ['ID', goString] };
const STORED_BID_RESPONSE_FIELDS: Readonly<Record<string, GoFieldReader>> = {
  id: ['ID', goString], bidder: ['Bidder', goString], replaceimpid: ['ReplaceImpId', goBool],
};
const STORED_BID_RESPONSES = '[]openrtb_ext.ExtStoredBidResponse';

/** `openrtb_ext.ExtImpPrebid`'s fields by lower-cased JSON name. */
const EXT_IMP_PREBID_FIELDS: Readonly<Record<string, GoFieldReader>> = {
  storedrequest: ['StoredRequest', structField('openrtb_ext.ExtStoredRequest', STORED_ID_FIELDS)],
  storedauctionresponse: ['StoredAuctionResponse', structField('openrtb_ext.ExtStoredAuctionResponse', STORED_ID_FIELDS)],
  storedbidresponse: [
    'StoredBidResponse',
    (value, links) => goSlice(value, links, STORED_BID_RESPONSES).map((entry) => {
      const inSlice = [...links, STORED_BID_RESPONSES];
      return readGoStruct(goStruct(entry, inSlice), 'openrtb_ext.ExtStoredBidResponse', STORED_BID_RESPONSE_FIELDS, inSlice);
    }),
  ],
  is_rewarded_inventory: ['IsRewardedInventory', goInt8],
  bidder: ['Bidder', goMap],
  options: ['Options', structField('openrtb_ext.Options', { echovideoattrs: ['EchoVideoAttrs', goBool] })],
  adunitcode: ['AdUnitCode', goString],
  passthrough: ['Passthrough', rawField],
  floors: [
    'Floors',
    structField('openrtb_ext.ExtImpPrebidFloors', {
      floorrule: ['FloorRule', goString], floorrulevalue: ['FloorRuleValue', goFloat], floorvalue: ['FloorValue', goFloat],
      floormin: ['FloorMin', goFloat], floormincur: ['FloorMinCur', goString],
    }),
  ],
  imp: ['Imp', goMap],
};

/** `adapters.ExtImpBidder`'s fields by lower-cased JSON name. */
const EXT_IMP_BIDDER_FIELDS: Readonly<Record<string, GoFieldReader>> = {
  prebid: ['Prebid', structField('openrtb_ext.ExtImpPrebid', EXT_IMP_PREBID_FIELDS)],
  bidder: ['Bidder', rawField],
  ae: ['AuctionEnvironment', goInt8],
};

// ---------------------------------------------------------------------------------------------------------------
// Bid ext
// ---------------------------------------------------------------------------------------------------------------

/** `openrtb_ext.ExtBid` once decoded: its `prebid` (`ExtBidPrebid`) members by lower-cased JSON name, when non-nil. */
export interface DecodedExtBid {
  prebid?: Record<string, unknown>;
}

/**
 * `bid.ext` decoded as PBS's adapters decode it with `jsonutil.Unmarshal` into `openrtb_ext.ExtBid` (openrtb_ext/
 * bid.go), e.g. to read the bid's type from `prebid.type`: an object (`null` the zero value; absent, the decoder has
 * nothing to read), members matched ignoring case in the order written, every typed member of `dsa` and `prebid`
 * (cache, meta, video, events, floors...) checked down to its Go type, the first that does not fit failing the whole
 * ext with json-iterator's text. `prebid` is absent when it is `null` (Go's nil pointer) or not written.
 */
export function decodeExtBid(ext: unknown): { value: DecodedExtBid } | { error: string } {
  try {
    const read = readGoStruct(goStruct(ext, []), 'openrtb_ext.ExtBid', EXT_BID_FIELDS, []);
    const prebid = read.prebid as Record<string, unknown> | undefined;
    return { value: prebid === undefined ? {} : { prebid } };
  } catch (err) {
    if (err instanceof GoDecodeError) return { error: err.message };
    throw err;
  }
}

/** A `[]string`: json-iterator names the slice type in front of a failure inside it. */
const stringSlice = (value: unknown, links: readonly string[]): unknown =>
  goSlice(value, links, '[]string').map((entry) => goString(entry, [...links, '[]string']));

/** A `map[string]string`. */
const stringMap = (value: unknown, links: readonly string[]): unknown => {
  const map = goMap(value, links);
  for (const key in map) goString(map[key], links);
  return map;
};

const EXT_BID_PREBID_META_FIELDS: Readonly<Record<string, GoFieldReader>> = {
  adaptercode: ['AdapterCode', goString], advertiserdomains: ['AdvertiserDomains', stringSlice], advertiserid: ['AdvertiserID', goInt],
  advertisername: ['AdvertiserName', goString], agencyid: ['AgencyID', goInt], agencyname: ['AgencyName', goString],
  brandid: ['BrandID', goInt], brandname: ['BrandName', goString], dchain: ['DChain', rawField], demandsource: ['DemandSource', goString],
  mediatype: ['MediaType', goString], networkid: ['NetworkID', goInt], networkname: ['NetworkName', goString],
  primarycatid: ['PrimaryCategoryID', goString], renderername: ['RendererName', goString], rendererversion: ['RendererVersion', goString],
  rendererdata: ['RendererData', rawField], rendererurl: ['RendererUrl', goString], secondarycatids: ['SecondaryCategoryIDs', stringSlice],
  seat: ['Seat', goString],
};

/** `openrtb_ext.ExtBidPrebid`'s fields by lower-cased JSON name. */
const EXT_BID_PREBID_FIELDS: Readonly<Record<string, GoFieldReader>> = {
  cache: [
    'Cache',
    structField('openrtb_ext.ExtBidPrebidCache', {
      key: ['Key', goString], url: ['Url', goString],
      bids: ['Bids', structField('openrtb_ext.ExtBidPrebidCacheBids', { url: ['Url', goString], cacheid: ['CacheId', goString] })],
    }),
  ],
  dealpriority: ['DealPriority', goInt],
  dealtiersatisfied: ['DealTierSatisfied', goBool],
  meta: ['Meta', structField('openrtb_ext.ExtBidPrebidMeta', EXT_BID_PREBID_META_FIELDS)],
  targeting: ['Targeting', stringMap],
  targetbiddercode: ['TargetBidderCode', goString],
  type: ['Type', goString],
  video: ['Video', structField('openrtb_ext.ExtBidPrebidVideo', { duration: ['Duration', goInt], primary_category: ['PrimaryCategory', goString] })],
  events: ['Events', structField('openrtb_ext.ExtBidPrebidEvents', { win: ['Win', goString], imp: ['Imp', goString] })],
  bidid: ['BidId', goString],
  passthrough: ['Passthrough', rawField],
  floors: [
    'Floors',
    structField('openrtb_ext.ExtBidPrebidFloors', {
      floorrule: ['FloorRule', goString], floorrulevalue: ['FloorRuleValue', goFloat], floorvalue: ['FloorValue', goFloat],
      floorcurrency: ['FloorCurrency', goString],
    }),
  ],
};

/** `openrtb_ext.ExtBid`'s fields by lower-cased JSON name. */
const EXT_BID_FIELDS: Readonly<Record<string, GoFieldReader>> = {
  dsa: ['DSA', structField('openrtb_ext.ExtBidDSA', { adrender: ['AdRender', goInt8], behalf: ['Behalf', goString], paid: ['Paid', goString] })],
  prebid: ['Prebid', structField('openrtb_ext.ExtBidPrebid', EXT_BID_PREBID_FIELDS)],
};

// ---------------------------------------------------------------------------------------------------------------
// Response status
// ---------------------------------------------------------------------------------------------------------------

/**
 * The text of PBS's `adapters.CheckResponseStatusCodeForErrors`. Many Go adapters write their own check with the same
 * words and a closing period: `unexpectedStatusText(status) + '.'`.
 */
export function unexpectedStatusText(status: number): string {
  return `Unexpected status code: ${status}. Run with request.debug = 1 for more info`;
}

/**
 * A decoder's error as a Go adapter prints it with the `%d` verb (`fmt.Sprintf("bad server response: %d. ", err)`):
 * `jsonutil.Unmarshal`'s error is a `*errortypes.FailedToUnmarshal`, which `%d` does not print through `Error()` but
 * as its struct, `&{...}`, and its one string field is a bad verb for `%d`.
 */
export function goDecodeErrorPrintedWithD(message: string): string {
  return `&{%!d(string=${message})}`;
}

/** How an adapter reports an answer whose status is neither 200 nor 204. Every field has PBS's default. */
export interface ResponseStatusRules {
  /** The error text for the status (default `unexpectedStatusText`). */
  text?: (status: number) => string;
  /** The code for any status but 400 (default BadServerResponse, 3). */
  code?: number;
  /** The code for a 400, the bidder refusing our request (default BadInput, 2). */
  badRequestCode?: number;
  /** The text for a 400, where the Go adapter words it apart ("Bad request from publisher."); default `text(400)`. */
  badRequestText?: string;
}

/** PBS's own `adapters.CheckResponseStatusCodeForErrors`, unchanged: for `readBidResponse(response, PBS_STATUS_CHECK)`. */
export const PBS_STATUS_CHECK: Readonly<ResponseStatusRules> = Object.freeze({});

/**
 * PBS's two status checks before decoding an answer: 204 carries no bids and no error; anything but 200 is an error
 * (a 400 bad input, the rest a bad server response, unless `rules` say otherwise). Returns the result to hand back
 * as it is, or undefined for a 200, whose body is then decoded.
 */
export function checkResponseStatus(response: ResponseData, rules: ResponseStatusRules = {}): MakeBidsResult | undefined {
  const { status } = response;
  if (status === 200) return undefined;
  if (status === 204) return { bids: [] };
  const text = rules.text ?? unexpectedStatusText;
  const error: BidderError =
    status === 400
      ? { code: rules.badRequestCode ?? BidderErrorCode.BadInput, message: rules.badRequestText ?? text(status) }
      : { code: rules.code ?? BidderErrorCode.BadServerResponse, message: text(status) };
  return { bids: [], errors: [error] };
}

// ---------------------------------------------------------------------------------------------------------------
// Response body
// ---------------------------------------------------------------------------------------------------------------

/**
 * An answer body as Go's decoder takes it into `openrtb2.BidResponse` at the top level, without checking the types
 * of the fields inside: an object, or `null` (the zero value: an empty response). Anything else, an empty body
 * included, is an error, with the decoder's detail.
 */
export function parseBidResponseBody(text: string): { body: JsonObject } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: (err as Error).message };
  }
  if (value === null) return { body: {} };
  return isJsonObject(value) ? { body: value } : { error: goObjectExpected(value) };
}

/** How a Go adapter reads its bidder's answer: the status rules, and how a body it cannot decode is reported. */
export interface GoBidResponseReading {
  /** How statuses other than 200 and 204 are reported (see `checkResponseStatus`). */
  status?: ResponseStatusRules;
  /**
   * The error for a body that does not decode, from the decoder's detail. By default the detail as it is, coded as
   * `jsonutil.Unmarshal`'s errors are (FailedToUnmarshal, 14): a Go adapter returns its decoder's error unwrapped.
   */
  decodeError?: (detail: string) => BidderError;
}

/**
 * A Go adapter's first steps with an answer: `checkResponseStatus`, then `parseBidResponseBody`. Returns the body of a
 * 200 that decodes, or the result to hand back as it is (no bid, or the error).
 */
export function readGoBidResponse(response: ResponseData, reading: GoBidResponseReading = {}): { body: JsonObject } | { result: MakeBidsResult } {
  const statusResult = checkResponseStatus(response, reading.status);
  if (statusResult) return { result: statusResult };
  const parsed = parseBidResponseBody(response.body);
  if ('error' in parsed) return { result: { bids: [], errors: [(reading.decodeError ?? failedToUnmarshal)(parsed.error)] } };
  return parsed;
}

/** The response's currency (`cur`) when it names one; Go's adapters keep their default (USD) otherwise. */
export function bidResponseCurrency(body: { cur?: unknown }): string | undefined {
  return typeof body.cur === 'string' && body.cur !== '' ? body.cur : undefined;
}

/** `openrtb2.BidResponse` as a Go adapter holds it after decoding: zero values filled, bids re-encoded. */
export interface Openrtb2BidResponse {
  id: string;
  cur: string;
  ext?: unknown;
  seatbid: Openrtb2SeatBid[];
}

export interface Openrtb2SeatBid {
  seat: string;
  ext?: unknown;
  bid: Bid[];
}

type GoKind = 'string' | 'number' | 'integer' | 'strings' | 'integers' | 'raw';

/** A struct field as Go declares it: its Go name (json-iterator's texts name it), its kind, a slice's Go type. */
interface GoFieldSpec {
  goName: string;
  kind: GoKind;
  sliceType?: string;
}

const field = (goName: string, kind: GoKind, sliceType?: string): GoFieldSpec => (sliceType === undefined ? { goName, kind } : { goName, kind, sliceType });

/** `openrtb2.BidResponse`'s fields by JSON name; `seatbid` is read as a list after them (`listOf`). */
const RESPONSE_FIELDS: Record<string, GoFieldSpec> = {
  id: field('ID', 'string'), seatbid: field('SeatBid', 'raw'), bidid: field('BidID', 'string'), cur: field('Cur', 'string'),
  customdata: field('CustomData', 'string'), nbr: field('NBR', 'integer'), ext: field('Ext', 'raw'),
};
/** `openrtb2.SeatBid`'s fields; `bid` is read as a list after them. */
const SEATBID_FIELDS: Record<string, GoFieldSpec> = {
  bid: field('Bid', 'raw'), seat: field('Seat', 'string'), group: field('Group', 'integer'), ext: field('Ext', 'raw'),
};
/** `openrtb2.Bid`'s fields in its order; all but id, impid and price are `omitempty`; `ext` is raw JSON. */
const BID_FIELDS: Record<string, GoFieldSpec> = {
  id: field('ID', 'string'), impid: field('ImpID', 'string'), price: field('Price', 'number'), nurl: field('NURL', 'string'),
  burl: field('BURL', 'string'), lurl: field('LURL', 'string'), adm: field('AdM', 'string'), adid: field('AdID', 'string'),
  adomain: field('ADomain', 'strings', '[]string'), bundle: field('Bundle', 'string'), iurl: field('IURL', 'string'),
  cid: field('CID', 'string'), crid: field('CrID', 'string'), tactic: field('Tactic', 'string'), cattax: field('CatTax', 'integer'),
  cat: field('Cat', 'strings', '[]string'), attr: field('Attr', 'integers', '[]adcom1.CreativeAttribute'),
  apis: field('APIs', 'integers', '[]adcom1.APIFramework'), api: field('API', 'integer'), protocol: field('Protocol', 'integer'),
  qagmediarating: field('QAGMediaRating', 'integer'), language: field('Language', 'string'), langb: field('LangB', 'string'),
  dealid: field('DealID', 'string'), w: field('W', 'integer'), h: field('H', 'integer'), wratio: field('WRatio', 'integer'),
  hratio: field('HRatio', 'integer'), exp: field('Exp', 'integer'), dur: field('Dur', 'integer'), mtype: field('MType', 'integer'),
  slotinpod: field('SlotInPod', 'integer'), ext: field('Ext', 'raw'),
};
const BID_ZERO_VALUES: Readonly<Record<string, unknown>> = { id: '', impid: '', price: 0 };

/**
 * An answer decoded the way PBS's Go adapters decode it into `openrtb2.BidResponse`, strictly: a body that is not a
 * JSON object (or `null`, the empty response), or a known field of the wrong JSON type anywhere down to the bids,
 * fails the whole answer with a decoder-like text. Each bid comes out as `encodeAsOpenrtb2Bid` re-encodes it. The
 * lenient `parseBidResponseBody` checks only the top level.
 */
export function decodeOpenrtb2BidResponse(text: string): { value: Openrtb2BidResponse } | { error: string } {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== 'n') return { error: `expect { or n, but found ${first ?? '\u0000'}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { error: `cannot unmarshal openrtb2.BidResponse: ${(err as Error).message}` };
  }
  if (parsed === null) return { value: { id: '', cur: '', seatbid: [] } };
  if (!isJsonObject(parsed)) return { error: 'expect { or n, but found n' };
  try {
    const response = checkFields(parsed, RESPONSE_FIELDS, 'openrtb2.BidResponse');
    const seatbid = listOf(response.seatbid, 'openrtb2.BidResponse.SeatBid').map((entry) => {
      const object = checkFields(objectOf(entry, '[]openrtb2.SeatBid'), SEATBID_FIELDS, 'openrtb2.SeatBid');
      const bid = listOf(object.bid, 'openrtb2.SeatBid.Bid').map((raw) => {
        return encodeAsOpenrtb2Bid(checkFields(objectOf(raw, '[]openrtb2.Bid'), BID_FIELDS, 'openrtb2.Bid'));
      });
      return withoutUndefined({ seat: stringOf(object.seat), ext: object.ext ?? undefined, bid }) as unknown as Openrtb2SeatBid;
    });
    return { value: withoutUndefined({ id: stringOf(response.id), cur: stringOf(response.cur), ext: response.ext ?? undefined, seatbid }) as unknown as Openrtb2BidResponse };
  } catch (err) {
    if (err instanceof GoDecodeError) return { error: err.message };
    throw err;
  }
}

/**
 * A bid as PBS passes it on after decoding it into Go's `openrtb2.Bid` and encoding it again: fields the struct does
 * not know are dropped; `id`, `impid` and `price` are always there (`null` or absent is the zero value); the other
 * fields are `omitempty`, so a `null`, 0, "" or [] is left out; `ext` is raw JSON, so an `ext` that is there stays,
 * even `null`. Fields come in the struct's order. Field types are not checked (`decodeOpenrtb2BidResponse` does).
 */
export function encodeAsOpenrtb2Bid(raw: JsonObject): Bid {
  const bid: JsonObject = {};
  for (const key in BID_FIELDS) {
    const value = raw[key];
    if (key in BID_ZERO_VALUES) bid[key] = value ?? BID_ZERO_VALUES[key];
    else if (BID_FIELDS[key]!.kind === 'raw' ? value !== undefined : !isGoEmpty(value)) bid[key] = value;
  }
  return bid as Bid;
}

/** What Go's `omitempty` leaves out of JSON it writes: a nil value, a zero number, false, "" or an empty list. */
export function isGoEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || value === 0 || value === false || (Array.isArray(value) && value.length === 0);
}

/**
 * The object's members in the order they come, matched to the struct's fields ignoring case, as json-iterator decodes
 * them: the first that does not fit its field's kind fails, in the words `jsonutil` cuts from json-iterator's error
 * (the field by its Go name, or a slice's Go type for an element that does not fit). Returns the object with its
 * fields under their JSON names: the object itself when every key is written so, else a copy in which a key in
 * other letters fills its field (the last one written winning, but a `null` leaves a number as it was).
 */
function checkFields(object: JsonObject, fields: Record<string, GoFieldSpec>, type: string): JsonObject {
  let renamed = false;
  for (const key in object) {
    const name = key.toLowerCase();
    const spec = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (spec !== undefined && name !== key) renamed = true;
    const value = object[key];
    if (spec === undefined || value === undefined || value === null) continue;
    const misfit = fieldMisfit(value, spec, `${type}.${spec.goName}`);
    if (misfit !== undefined) throw new GoDecodeError(misfit);
  }
  return renamed ? withFieldNames(object, fields) : object;
}

/** The object's known fields under their JSON names, filled as Go's decoder fills a struct from keys in any letters. */
function withFieldNames(object: JsonObject, fields: Record<string, GoFieldSpec>): JsonObject {
  const named: JsonObject = {};
  for (const key in object) {
    const name = key.toLowerCase();
    const spec = Object.hasOwn(fields, name) ? fields[name] : undefined;
    const value = object[key];
    if (spec === undefined) {
      if (!(key in named)) named[key] = value;
      continue;
    }
    // json-iterator leaves a number as it was on `null`; a text becomes "", a list nil, raw JSON `null`.
    if (value === null && (spec.kind === 'number' || spec.kind === 'integer') && named[name] !== undefined) continue;
    named[name] = value;
  }
  return named;
}

function fieldMisfit(value: unknown, spec: GoFieldSpec, link: string): string | undefined {
  switch (spec.kind) {
    case 'string':
      return typeof value === 'string' ? undefined : `cannot unmarshal ${link}: expects " or n, but found ${goFoundByte(value)}`;
    case 'number':
      return typeof value === 'number' ? undefined : `cannot unmarshal ${link}: invalid number`;
    case 'integer':
      return integerMisfit(value, link);
    case 'strings':
    case 'integers': {
      if (!Array.isArray(value)) return `cannot unmarshal ${link}: decode slice: expect [ or n, but found ${goFoundByte(value)}`;
      for (const item of value) {
        if (item === null) continue;
        const misfit = spec.kind === 'strings'
          ? typeof item === 'string' ? undefined : `cannot unmarshal ${spec.sliceType}: expects " or n, but found ${goFoundByte(item)}`
          : integerMisfit(item, spec.sliceType!);
        if (misfit !== undefined) return misfit;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function integerMisfit(value: unknown, link: string): string | undefined {
  if (typeof value !== 'number') return `cannot unmarshal ${link}: unexpected character: \ufffd`;
  return Number.isInteger(value) ? undefined : `cannot unmarshal ${link}: can not decode float as int`;
}

function listOf(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new GoDecodeError(`cannot unmarshal ${path}: decode slice: expect [ or n, but found ${JSON.stringify(value)[0]}`);
  return value;
}

/** A `null` array element decodes to Go's zero value. */
function objectOf(value: unknown, sliceType: string): JsonObject {
  if (value === null) return {};
  if (!isJsonObject(value)) throw new GoDecodeError(`cannot unmarshal ${sliceType}: expect { or n, but found ${goFoundByte(value)}`);
  return value;
}

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function withoutUndefined(object: JsonObject): JsonObject {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object;
}

// ---------------------------------------------------------------------------------------------------------------
// Bid types
// ---------------------------------------------------------------------------------------------------------------

/**
 * The media type `bid.mtype` names (OpenRTB 2.6: 1 banner, 2 video, 3 audio, 4 native), when the adapter takes it:
 * many Go adapters switch on a few of the values and refuse the others. Undefined for a value outside `accepted`, or
 * an mtype that is absent or not one of the four.
 */
export function mediaTypeFromMtype(mtype: unknown, accepted: readonly MediaType[] = ['banner', 'video', 'audio', 'native']): MediaType | undefined {
  const type = typeof mtype === 'number' ? MTYPE_TO_MEDIA_TYPE[mtype] : undefined;
  return type !== undefined && accepted.includes(type) ? type : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Floors
// ---------------------------------------------------------------------------------------------------------------

/**
 * The imp with its floor in `currency`, as Go adapters convert it for a bidder that takes one currency only
 * (`if imp.BidFloor > 0 && imp.BidFloorCur != "" && strings.ToUpper(imp.BidFloorCur) != "USD"`): a positive floor
 * naming another currency (compared ignoring case) is converted, and the imp then names `currency`; any other imp
 * is returned as it is. The conversion's error text when no rate is known.
 */
export function withFloorInCurrency(imp: Imp, currency: string, info: RequestInfo): { imp: Imp } | { error: string } {
  const floor = imp.bidfloor;
  const from = imp.bidfloorcur;
  if (typeof floor !== 'number' || !(floor > 0) || typeof from !== 'string' || from === '' || from.toUpperCase() === currency.toUpperCase()) return { imp };
  try {
    return { imp: { ...imp, bidfloor: info.convertCurrency(floor, from, currency), bidfloorcur: currency } };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Currency codes
// ---------------------------------------------------------------------------------------------------------------

/** CLDR's currency names, which golang.org/x/text's currency table is generated from (historic codes included). */
let currencyNames: Intl.DisplayNames | undefined;

/**
 * Why Go's `currency.ParseISO` (golang.org/x/text) refuses a currency code, in its words, or undefined when it takes
 * it: a code must be three letters in any case (`currency: tag is not well-formed`: the empty string is one) and
 * one CLDR knows, current or historic (`currency: tag is not a recognized currency`). Prebid Server's rate lookups
 * (`Rates.GetRate`) check both codes so before looking for a rate.
 */
export function goCurrencyCodeError(code: string): string | undefined {
  if (!/^[A-Za-z]{3}$/.test(code)) return 'currency: tag is not well-formed';
  currencyNames ??= new Intl.DisplayNames(['en'], { type: 'currency', fallback: 'none' });
  return currencyNames.of(code.toUpperCase()) === undefined ? 'currency: tag is not a recognized currency' : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------------------

/**
 * A Go adapter returns its decoder's error as it is, which PBS reports as a generic error (code 999): for adapters
 * that read the answer with the SDK's `readBidResponse`, whose errors carry the bad-server-response code.
 */
export function asGenericErrors(errors: BidderError[] | undefined): BidderError[] | undefined {
  return errors?.map((error) => unknownError(error.message));
}

// ---------------------------------------------------------------------------------------------------------------
// URLs
// ---------------------------------------------------------------------------------------------------------------

/**
 * Go's `url.QueryEscape` (what `url.Values.Encode` writes): letters, digits and `-_.~` as they are, a space as `+`,
 * every other UTF-8 byte as `%XX` in capitals.
 */
export function goQueryEscape(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
}
