/** Reads an XAPI response into typed bids, as Prebid Server's adapter does. */
import {
  badServerResponse,
  checkResponseStatus,
  decodeExtBid,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  fieldIgnoringCase,
  goCompactJson,
  goFieldNameMatches,
  isJsonObject,
  parseJsonText,
  requestOption,
  unknownError,
  type Bid,
  type BidRequest,
  type Imp,
  type JsonObject,
  type JsonText,
  type MakeBidsResult,
  type RequestData,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';
import { readRubiconImpExt } from './params.js';
import { xapiMediaType } from './xapi-request.js';

/** The keys of `bid.ext.prebid` Prebid Server's `openrtb_ext.ExtBidPrebid` knows; re-encoding drops the others. */
const PREBID_KEYS = ['cache', 'dealpriority', 'dealtiersatisfied', 'meta', 'targeting', 'targetbiddercode', 'type', 'video', 'events', 'bidid', 'passthrough', 'floors'];
/** The keys of `openrtb_ext.ExtBidPrebidMeta`. */
const META_KEYS = [
  'adaptercode', 'advertiserDomains', 'advertiserId', 'advertiserName', 'agencyId', 'agencyName', 'brandId', 'brandName', 'dchain',
  'demandSource', 'mediaType', 'networkId', 'networkName', 'primaryCatId', 'rendererName', 'rendererVersion', 'rendererData',
  'rendererUrl', 'secondaryCatIds', 'seat',
];

export interface PriceOverrides {
  /** Per imp id, from the imp's params (`debug.cpmoverride`; 0 is none). */
  byImp: ReadonlyMap<string, number>;
  /** From `request.ext.<ns>.bidders.rubicon.debug.cpmoverride`, for imps without their own. */
  forRequest: number;
}

export function readXapiBids(sent: RequestData, response: ResponseData, overrides: PriceOverrides): MakeBidsResult {
  const statusResult = checkResponseStatus(response);
  if (statusResult) return statusResult;

  const decoded = decodeOpenrtb2BidResponse(response.body);
  if ('error' in decoded) return { bids: [], errors: [badServerResponse(decoded.error)] };
  // XAPI's own fields, which the OpenRTB decoding leaves out: the seatbid's buyer and a bid's object adm_native.
  // Go reads them into its structs: names matched ignoring case, the last of a name winning.
  const raw = decoded.value.seatbid.length > 0 ? (JSON.parse(response.body) as JsonObject) : {};
  const rawSeatbids = fieldIgnoringCase(raw, 'seatbid');
  const buyers = (Array.isArray(rawSeatbids) ? rawSeatbids : []).map((seatbid: unknown) => (isJsonObject(seatbid) ? fieldIgnoringCase(seatbid, 'buyer') : undefined));
  const badBuyer = buyers.find((buyer) => buyer !== undefined && buyer !== null && typeof buyer !== 'string');
  if (badBuyer !== undefined) return { bids: [], errors: [badServerResponse(`cannot unmarshal rubicon.rubiconSeatBid.Buyer: expects " or n, but found ${JSON.stringify(badBuyer)[0]}`)] };
  const responseBidId = fieldIgnoringCase(raw, 'bidid');

  // Each call carries one imp of one media type, so every bid in the answer is of that type.
  const imp = sentImp(sent);
  if (imp === UNDECODABLE) return { bids: [], errors: [failedToUnmarshal(SENT_IMP_UNREADABLE)] };
  if (!imp) return { bids: [], errors: [unknownError(SENT_IMP_UNREADABLE)] };
  const type = xapiMediaType(imp);
  const admNatives = new AdmNativeTexts(response.body);
  const bids: TypedBid[] = [];
  decoded.value.seatbid.forEach((seatbid, seatIndex) => {
    const buyer = goAtoi(buyers[seatIndex]);
    seatbid.bid.forEach((decodedBid, bidIndex) => {
      const admNative = () => admNatives.text(seatIndex, bidIndex);
      const bid = toBid(decodedBid, admNative, buyer, seatbid.seat, overrides, typeof responseBidId === 'string' ? responseBidId : '');
      // XAPI answers "no bid" for an imp with a zero-priced bid.
      if (bid.price !== 0) bids.push({ bid, type });
    });
  });
  return { currency: decoded.value.cur || 'USD', bids, errors: [] };
}

export function priceOverrides(request: BidRequest): PriceOverrides {
  const byImp = new Map<string, number>();
  for (const imp of request.imp) {
    try {
      byImp.set(imp.id, readRubiconImpExt(imp).params.cpmOverride);
    } catch {
      // An imp whose params cannot be read has no override of its own.
    }
  }
  const requestLevel = requestOption(request, 'bidders', 'rubicon', 'debug', 'cpmoverride');
  return { byImp, forRequest: typeof requestLevel === 'number' ? requestLevel : 0 };
}

function toBid(decoded: Bid, admNative: () => string, buyer: number, seat: string, overrides: PriceOverrides, responseBidId: string): Bid {
  const bid: Bid = { ...decoded };
  const ext = withMeta(decoded.ext, buyer, seat);
  if (ext !== undefined) bid.ext = ext;

  const override = overrides.byImp.get(bid.impid) || overrides.forRequest;
  if (override > 0) bid.price = override;
  // XAPI returns one bid per response and may leave its id as "0": the response's bidid names it then.
  if (bid.id === '0') bid.id = responseBidId;
  // Native ads may come as an object in `adm_native` rather than as text in `adm` (none at all reads as "null").
  if (!bid.adm) bid.adm = admNative();
  return bid;
}

/**
 * Records the buyer network and the seat in `bid.ext.prebid.meta`, where the auction reports them. The ext is then
 * what Prebid Server re-encodes: `prebid` (its known keys, meta's known keys, empty values left out) and `bidder`;
 * an ext it cannot decode stays as it was.
 */
function withMeta(ext: unknown, buyer: number, seat: string): JsonObject | undefined {
  if (buyer <= 0 && seat === '') return undefined;
  if (ext !== undefined && ext !== null && !isJsonObject(ext)) return undefined;
  const bidExt = ext ?? {};
  // Go decodes the ext into `{prebid, bidder}` (names matched ignoring case), `prebid` an `openrtb_ext.ExtBidPrebid`
  // whose every typed member is checked: one of the wrong type, and the ext stays as it was.
  const prebidMember = fieldIgnoringCase(bidExt, 'prebid');
  if (prebidMember !== undefined && 'error' in decodeExtBid({ prebid: prebidMember })) return undefined;
  const prebid = knownKeys((prebidMember as JsonObject | null | undefined) ?? {}, PREBID_KEYS);
  if (prebid.meta !== undefined && !isJsonObject(prebid.meta)) return undefined;
  const meta = knownKeys((prebid.meta as JsonObject | undefined) ?? {}, META_KEYS);
  delete meta.networkId;
  delete meta.seat;
  if (buyer !== 0) meta.networkId = buyer;
  if (seat !== '') meta.seat = seat;
  if (isJsonObject(prebid.video)) {
    prebid.video = { duration: fieldIgnoringCase(prebid.video, 'duration') ?? 0, primary_category: fieldIgnoringCase(prebid.video, 'primary_category') ?? '' };
  }
  const result: JsonObject = { prebid: { ...prebid, meta } };
  const bidder = fieldIgnoringCase(bidExt, 'bidder');
  if (bidder !== undefined) result.bidder = bidder;
  return result;
}

/**
 * The object's known keys, as Go's struct fields take them (names matched ignoring case, the last winning) and write
 * them back under their own names, without the empty values Go's `omitempty` leaves out.
 */
function knownKeys(object: JsonObject, keys: readonly string[]): JsonObject {
  const kept: JsonObject = {};
  for (const key of keys) {
    const value = fieldIgnoringCase(object, key);
    if (value === undefined || value === null || value === '' || value === 0 || value === false || (Array.isArray(value) && value.length === 0)) continue;
    kept[key] = value;
  }
  return kept;
}

/**
 * The markup of bids that send it as the object `adm_native`: what Go's `json.Marshal` writes for that
 * `json.RawMessage`, the value's own text compacted and HTML-safe (`<`, `>`, `&` as `\u003c`...), members, order and
 * numbers as written; "null" when there is none. The answer is read for its text only when a bid needs it.
 */
class AdmNativeTexts {
  private root: JsonText | undefined | null = null;

  constructor(private readonly body: string) {}

  text(seatIndex: number, bidIndex: number): string {
    if (this.root === null) this.root = parseJsonText(this.body);
    const seatbid = item(member(this.root, 'seatbid'), seatIndex);
    const value = member(item(member(seatbid, 'bid'), bidIndex), 'adm_native');
    return value === undefined ? 'null' : goCompactJson(value.text);
  }
}

/** An object's member as json-iterator takes it for a struct field: names matched ignoring case, the last one winning. */
function member(node: JsonText | undefined, name: string): JsonText | undefined {
  if (node?.kind !== 'object') return undefined;
  let found: JsonText | undefined;
  for (const entry of node.members) if (goFieldNameMatches(entry.key, name)) found = entry.value;
  return found;
}

function item(node: JsonText | undefined, index: number): JsonText | undefined {
  return node?.kind === 'array' ? node.items[index] : undefined;
}

/** Go's `strconv.Atoi`, 0 when it fails. */
function goAtoi(value: unknown): number {
  return typeof value === 'string' && /^[+-]?\d+$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : 0;
}

const SENT_IMP_UNREADABLE = 'cannot read the imp of the request sent to XAPI';
/** A sent body Go's adapter cannot decode back into a BidRequest: jsonutil's error, returned as it is (code 14). */
const UNDECODABLE = Symbol('undecodable');

/**
 * The imp of the call sent (a body given as text is decoded); `UNDECODABLE` when the body does not decode as a
 * request (not JSON, not an object, `imp` not a list), undefined when it has no imp to read.
 */
function sentImp(sent: RequestData): Imp | typeof UNDECODABLE | undefined {
  let body: unknown = sent.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return UNDECODABLE;
    }
  }
  if (body === undefined || body === null) return undefined;
  if (!isJsonObject(body) || (body.imp !== undefined && body.imp !== null && !Array.isArray(body.imp))) return UNDECODABLE;
  const imp = Array.isArray(body.imp) ? body.imp[0] : undefined;
  return isJsonObject(imp) ? (imp as Imp) : undefined;
}
