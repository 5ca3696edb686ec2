/**
 * Grid (TheMediaGrid) bidder: every imp with a Grid `uid` goes to Grid in one call. The request carries Grid's
 * consolidated keywords in `ext.keywords` (see keywords.ts), an imp with an ad server slot also gets it as `gpid`,
 * and native requests travel parsed, as `native.request_native`. Bids are typed by Grid's `content_type`, else by
 * the imp they answer; native markup may come as an object in `adm_native`.
 */
import {
  badInput,
  badServerResponse,
  checkResponseStatus,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  fieldIgnoringCase,
  goCompactJson,
  GoDecodeError,
  goInt,
  impsOfSentRequest,
  goFieldNameMatches,
  isJsonObject,
  parseJsonText,
  encodeAsOpenrtb2Request,
  encodeImpOptionsAsPrebidServer,
  type Bid,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type Imp,
  type JsonObject,
  type JsonText,
  type MediaType,
  type TypedBid,
} from '../../core/api/index.js';
import { extWithKeywords } from './keywords.js';

const HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json;charset=utf-8' };

export function createGridBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request) {
      const errors: BidderError[] = [];
      const imps: Imp[] = [];
      for (const imp of Array.isArray(request.imp) ? request.imp : []) {
        const error = checkImp(imp);
        if (error) errors.push(error);
        else imps.push(withGpid(imp));
      }
      if (imps.length === 0) return { requests: [], errors: [...errors, badInput('No valid impressions for grid')] };

      // Keywords come from the first imp of the request as it came in, valid or not.
      // Grid's own imp type adds `request_native` to openrtb2's native, which the encoding would not know.
      const encoded = encodeAsOpenrtb2Request({ ...request, imp: imps });
      const body: BidRequest = { ...encoded, imp: withNativeRequestsParsed(encoded.imp) };
      const ext = extWithKeywords(request);
      if (ext) body.ext = ext;
      else delete body.ext;
      return { requests: [{ method: 'POST', uri: config.endpoint, body, headers: { ...HEADERS }, impIds: imps.map((imp) => imp.id) }], errors };
    },

    makeBids(request, sent, response) {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;

      // The decoder's error goes back as it is (a generic error). Grid's own bid fields are read beside the decoded
      // OpenRTB bids, which drop them.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(asInGridStructs(decoded.error))] };
      const gridFields = readGridBidFields(response.body);
      if ('error' in gridFields) return { bids: [], errors: [failedToUnmarshal(gridFields.error)] };

      // Prebid Server's adapter replaced the request's imps with the ones it kept, and looks bids up among those.
      const imps = impsOfSentRequest(sent) ?? request.imp;
      const bids: TypedBid[] = [];
      let admNativeTexts: Array<Array<string | undefined>> | undefined;
      for (const [seatIndex, seatbid] of decoded.value.seatbid.entries()) {
        for (const [bidIndex, bid] of seatbid.bid.entries()) {
          const { contentType, admNative } = gridFields.value[seatIndex]?.[bidIndex] ?? {};
          // Any bid that cannot be typed drops the whole answer, as it does in Prebid Server.
          const type = bidType(bid, contentType, imps);
          if (typeof type !== 'string') return { bids: [], errors: [type] };
          // Native markup sent as an object is read again with its text, once per answer, only when a bid needs it.
          if (admNative !== undefined && !bid.adm) admNativeTexts ??= readAdmNativeTexts(response.body);
          bids.push(typedBid(bid, type, admNative === undefined ? undefined : admNativeTexts?.[seatIndex]?.[bidIndex]));
        }
      }
      // Grid prices in USD; the response's `cur` is not read.
      return { currency: 'USD', bids };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------------------

/**
 * The imp's `uid` as the Go adapter reads it (processImp, grid.go): `imp.ext` decoded into `adapters.ExtImpBidder`
 * (the SDK's `decodeExtImpBidder`: its `prebid` a typed `ExtImpPrebid`, its `ae` an int8), then its `bidder` into
 * `ExtImpGrid` (keys in any case), with the texts of Prebid Server's decoder; Go holds a raw `null` as no JSON, which
 * fails as empty input. Go returns the decoder's error unwrapped (FailedToUnmarshal, 14). A zero or missing uid is
 * bad input.
 */
function checkImp(imp: Imp): BidderError | undefined {
  const ext = decodeExtImpBidder(imp.ext);
  if ('error' in ext) return failedToUnmarshal(ext.error);
  const params = ext.value.bidder;
  if (!isJsonObject(params)) return failedToUnmarshal(`expect { or n, but found ${firstCharOf(params)}`);
  let uid: number;
  try {
    uid = goInt(fieldIgnoringCase(params, 'uid'), ['openrtb_ext.ExtImpGrid.Uid']);
  } catch (err) {
    if (err instanceof GoDecodeError) return failedToUnmarshal(err.message);
    throw err;
  }
  return uid ? undefined : badInput('uid is empty');
}

/**
 * The character Go's decoder names in "but found X": the value's first JSON character, NUL when there is none (a raw
 * `null` is held as none).
 */
function firstCharOf(value: unknown): string {
  return value === undefined || value === null ? '\u0000' : JSON.stringify(value)[0]!;
}

/**
 * An imp whose `ext.data.adserver.adslot` names a slot gets it as `ext.gpid` (setImpExtData, grid.go). Its ext is
 * then rewritten as Prebid Server re-encodes its `ExtImp` struct: only the keys Grid reads (prebid, as its
 * `ExtImpPrebid` struct writes it; bidder; data with pbadslot and adserver name/adslot; gpid, skadn, context),
 * matched in any case and written in lower case, empty ones left out; an ext of another shape is left alone.
 */
function withGpid(imp: Imp): Imp {
  const ext = imp.ext as JsonObject;
  const field = (object: JsonObject, name: string): unknown => fieldIgnoringCase(object, name) ?? undefined;
  const data = field(ext, 'data');
  const adserver = isJsonObject(data) ? field(data, 'adserver') : undefined;
  const adslot = isJsonObject(adserver) ? field(adserver, 'adslot') : undefined;
  if (!isJsonObject(data) || !isJsonObject(adserver) || typeof adslot !== 'string' || adslot === '') return imp;
  const pbadslot = field(data, 'pbadslot');
  const name = field(adserver, 'name');
  const prebid = field(ext, 'prebid');
  if (!isOptional(pbadslot, 'string') || !isOptional(name, 'string') || !isOptional(field(ext, 'gpid'), 'string')) return imp;
  // `ExtImp.Prebid` is the typed `*openrtb_ext.ExtImpPrebid` that `checkImp` already decoded (setImpExtData,
  // grid.go): one that does not fit leaves the imp alone, as Go's failed decode does.
  if ('error' in decodeExtImpBidder({ prebid: prebid ?? null })) return imp;

  const rewritten: JsonObject = {};
  // A non-nil `*ExtImpPrebid` is written even when all its members are empty.
  if (isJsonObject(prebid)) rewritten.prebid = encodeImpOptionsAsPrebidServer(prebid) ?? {};
  rewritten.bidder = field(ext, 'bidder') ?? null;
  rewritten.data = { ...(pbadslot ? { pbadslot } : {}), adserver: { name: name ?? '', adslot } };
  rewritten.gpid = adslot;
  for (const key of ['skadn', 'context']) {
    const value = field(ext, key);
    if (value !== undefined) rewritten[key] = value;
  }
  return { ...imp, ext: rewritten };
}

function isOptional(value: unknown, type: 'string'): boolean {
  return value === undefined || value === null || typeof value === type;
}

/**
 * Grid takes the native request as JSON: `native.request` (a string) becomes `native.request_native`, parsed when it
 * is an object (or null), else kept as text. Prebid Server decodes every imp's request into one map it declares once,
 * so the objects pile up: every imp parsed since the last `null` shares that one map, holding all of their members
 * (a later imp's value winning), and each imp's `request_native` is that map.
 */
function withNativeRequestsParsed(imps: Imp[]): Imp[] {
  let shared: JsonObject | undefined;
  return imps.map((imp) => {
    if (!isJsonObject(imp.native) || typeof imp.native.request !== 'string') return imp;
    const { request, ...native } = imp.native;
    const parsed = parseJson(request);
    let requestNative: unknown = request;
    if (parsed === null) {
      shared = undefined;
      requestNative = null;
    } else if (isJsonObject(parsed)) {
      shared = Object.assign(shared ?? {}, parsed);
      requestNative = shared;
    }
    return { ...imp, native: { ...native, request_native: requestNative } };
  });
}

/** The parsed text, or undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Bids
// ---------------------------------------------------------------------------------------------------------------

/** Grid's members of a bid beside OpenRTB's, as Go decodes them into `GridBid`. */
interface GridBidFields {
  contentType?: string;
  admNative?: unknown;
}

/**
 * `content_type` and `adm_native` of every bid, by seatbid and bid position. The body already decoded as an OpenRTB
 * response; a `content_type` that is not a string fails the decode, as it does Go's. A raw `null` is held as none.
 */
function readGridBidFields(text: string): { value: GridBidFields[][] } | { error: string } {
  const body = parseJson(text);
  const seatbids = isJsonObject(body) && Array.isArray(body.seatbid) ? body.seatbid : [];
  const value: GridBidFields[][] = [];
  for (const seatbid of seatbids) {
    const bids = isJsonObject(seatbid) && Array.isArray(seatbid.bid) ? seatbid.bid : [];
    const fields: GridBidFields[] = [];
    for (const bid of bids) {
      const contentType = isJsonObject(bid) ? (fieldIgnoringCase(bid, 'content_type') ?? undefined) : undefined;
      const admNative = isJsonObject(bid) ? (fieldIgnoringCase(bid, 'adm_native') ?? undefined) : undefined;
      if (contentType !== undefined && typeof contentType !== 'string') {
        return { error: `cannot unmarshal grid.GridBid.ContentType: expects " or n, but found ${firstCharOf(contentType)}` };
      }
      fields.push({ contentType, admNative });
    }
    value.push(fields);
  }
  return { value };
}

/**
 * The decoder's text for OpenRTB's response structs, as Go words it for Grid's own (`GridResponse`, `GridSeatBid`,
 * `GridBid`), which embed OpenRTB's by pointer and replace their lists: json-iterator names a member of an embedded
 * struct by its field alone (`cannot unmarshal Price: ...`), and the lists by Grid's types.
 */
function asInGridStructs(text: string): string {
  return text
    .replace(/^cannot unmarshal openrtb2\.BidResponse\.SeatBid: /, 'cannot unmarshal grid.GridResponse.SeatBid: ')
    .replace(/^cannot unmarshal openrtb2\.SeatBid\.Bid: /, 'cannot unmarshal grid.GridSeatBid.Bid: ')
    .replace(/^cannot unmarshal \[\]openrtb2\.(SeatBid|Bid): /, 'cannot unmarshal []grid.Grid$1: ')
    .replace(/^cannot unmarshal openrtb2\.(?:BidResponse|SeatBid|Bid)\.(\w+): /, 'cannot unmarshal $1: ');
}

/** Grid's `content_type` when it sends one, else the first of banner, video, native the imp offers. */
function bidType(bid: Bid, contentType: string | undefined, imps: Imp[]): MediaType | BidderError {
  const impId = bid.impid;
  // Go passes any content type on as the bid type (a plain string there); the core takes it as it comes.
  if (contentType) return contentType as MediaType;
  const imp = imps.find((candidate) => candidate.id === impId);
  if (!imp) return badServerResponse(`Failed to find impression for ID: "${impId}"`);
  if (imp.banner) return 'banner';
  if (imp.video) return 'video';
  if (imp.native) return 'native';
  return badServerResponse(`Unknown impression type for ID: "${impId}"`);
}

/** The OpenRTB bid, its native markup from `adm_native` when `adm` is empty, and Grid's demand source as its network. */
function typedBid(bid: Bid, type: MediaType, admNativeText: string | undefined): TypedBid {
  const typed: TypedBid = { bid: admNativeText !== undefined && !bid.adm ? { ...bid, adm: admNativeText } : bid, type };
  const demandSource = demandSourceOf(bid.ext);
  if (demandSource) typed.meta = { networkName: demandSource };
  return typed;
}

/**
 * Each bid's `adm_native` as Go's `json.Marshal` writes the raw JSON it holds: its own text compacted and HTML-safe
 * (numbers and escapes as Grid wrote them), by seatbid and bid position. Members are matched ignoring case, the
 * last of a name winning, as json-iterator decodes them; a raw `null` is held as none.
 */
function readAdmNativeTexts(text: string): Array<Array<string | undefined>> {
  const lastMember = (value: JsonText | undefined, name: string): JsonText | undefined =>
    value?.kind === 'object' ? value.members.findLast((member) => goFieldNameMatches(member.key, name))?.value : undefined;
  const seatbids = lastMember(parseJsonText(text), 'seatbid');
  if (seatbids?.kind !== 'array') return [];
  return seatbids.items.map((seatbid) => {
    const bids = lastMember(seatbid, 'bid');
    if (bids?.kind !== 'array') return [];
    return bids.items.map((bid) => {
      const admNative = lastMember(bid, 'adm_native');
      return admNative === undefined || admNative.kind === 'null' ? undefined : goCompactJson(admNative.text);
    });
  });
}

/** `ext.bidder.grid.demandSource` as Go decodes `bid.ext` into `GridBidExt` (keys in any case); nothing when that fails. */
function demandSourceOf(ext: unknown): string | undefined {
  const bidder = isJsonObject(ext) ? fieldIgnoringCase(ext, 'bidder') : undefined;
  const grid = isJsonObject(bidder) ? fieldIgnoringCase(bidder, 'grid') : undefined;
  const source = isJsonObject(grid) ? fieldIgnoringCase(grid, 'demandSource') : undefined;
  return typeof source === 'string' && source !== '' ? source : undefined;
}
