/**
 * Smaato's answers. The markup type of every bid in an answer comes in the `X-Smt-Adtype` header: `Img` and
 * `Richmedia` are banners (click trackers from `bid.ext.curls` wrapped around the markup), `Video` is video (its
 * duration from `bid.ext.duration`), `Native` is native (the markup is `{"native": {...}}`, unwrapped). Every bid
 * expires after the `X-Smt-Expires` header's epoch milliseconds, else after 300 seconds.
 */
import {
  badServerResponse,
  BidderErrorCode,
  checkResponseStatus,
  decodeOpenrtb2BidResponse,
  encodeAsOpenrtb2Bid,
  failedToUnmarshal,
  fieldIgnoringCase,
  goCompactJson,
  goFieldNameMatches,
  goQueryEscape,
  isJsonObject,
  parseJsonText,
  unexpectedStatusText,
  type Bid,
  type BidderError,
  type MakeBidsResult,
  type MediaType,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

/** A map, so that a header naming an object builtin (`constructor`, `toString`) is no markup type. */
const MARKUP_TYPES: ReadonlyMap<string, MediaType> = new Map<string, MediaType>([
  ['Img', 'banner'],
  ['Richmedia', 'banner'],
  ['Video', 'video'],
  ['Native', 'native'],
]);
const DEFAULT_TTL_SECONDS = 300;

interface SmaatoBidExt {
  duration: number;
  curls: string[];
}

export function smaatoBids(response: ResponseData, now: () => number): MakeBidsResult {
  // Smaato's Go adapter does not set a 400 apart, and ends its text with a period.
  const statusResult = checkResponseStatus(response, { text: (status) => `${unexpectedStatusText(status)}.`, badRequestCode: BidderErrorCode.BadServerResponse });
  if (statusResult) return statusResult;
  // Prebid Server returns its decoder's error as it is (a generic error): an empty body, or a bid that is not an
  // object, fails the whole answer, before the headers are looked at.
  const decoded = decodeOpenrtb2BidResponse(response.body);
  if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

  const markupType = header(response, 'X-Smt-Adtype') ?? '';
  if (markupType === '') return { bids: [], errors: [badServerResponse('X-Smt-Adtype header is missing.')] };
  const ttl = ttlSeconds(header(response, 'X-Smt-Expires'), now);

  const bids: TypedBid[] = [];
  const errors: BidderError[] = [];
  for (const seatbid of decoded.value.seatbid) {
    for (const bid of seatbid.bid) {
      const typed = typedBid(bid, markupType, ttl);
      if ('code' in typed) errors.push(typed);
      else bids.push(typed);
    }
  }
  return errors.length > 0 ? { currency: 'USD', bids, errors } : { currency: 'USD', bids };
}

function typedBid(decoded: Bid, markupType: string, ttl: number): TypedBid | BidderError {
  const ext = readBidExt(decoded.ext);
  if (!ext) return badServerResponse('Invalid bid.ext.');
  const type = MARKUP_TYPES.get(markupType);
  if (!type) return badServerResponse(`Unknown markup type ${markupType}.`);

  const adm = typeof decoded.adm === 'string' ? decoded.adm : '';
  const rendered = type === 'native' ? nativeMarkup(adm) : type === 'banner' ? bannerMarkup(adm, ext.curls) : adm;
  if (rendered === undefined) return badServerResponse(`Invalid ad markup ${adm}.`);

  // Encoded again so that an empty markup or a zero expiry is left out, as Go's encoder leaves it out.
  const bid = encodeAsOpenrtb2Bid({ ...decoded, adm: rendered, exp: ttl });
  if (type !== 'video') return { bid, type };
  const category = Array.isArray(bid.cat) && typeof bid.cat[0] === 'string' ? bid.cat[0] : '';
  return { bid, type, video: { duration: ext.duration, primaryCategory: category } };
}

/**
 * `bid.ext` as Go decodes it into Smaato's struct (`duration`, `curls`; names matched ignoring case, `null` the zero
 * value, a `null` click tracker an empty one); undefined when it has another shape.
 */
function readBidExt(ext: unknown): SmaatoBidExt | undefined {
  if (ext === undefined || ext === null) return { duration: 0, curls: [] };
  if (!isJsonObject(ext)) return undefined;
  const duration = fieldIgnoringCase(ext, 'duration') ?? 0;
  const curls = fieldIgnoringCase(ext, 'curls') ?? [];
  if (!Number.isInteger(duration) || !Array.isArray(curls) || !curls.every((url) => url === null || typeof url === 'string')) return undefined;
  return { duration: duration as number, curls: curls.map((url: string | null) => url ?? '') };
}

/** With click trackers, the markup is wrapped in a clickable div that fires each of them. */
export function bannerMarkup(adm: string, clickTrackers: string[]): string {
  if (clickTrackers.length === 0) return adm;
  const clicks = clickTrackers
    .map((url) => `fetch(decodeURIComponent('${goQueryEscape(url)}'.replace(/\\+/g, ' ')), {cache: 'no-cache'});`)
    .join('');
  return `<div style="cursor:pointer" onclick="${clicks}">${adm}</div>`;
}

/**
 * The `native` member of `{"native": {...}}` markup as Go passes its `json.RawMessage` on: compacted and HTML-safe,
 * but numbers and string escapes as Smaato wrote them (native.go). The last member named `native` in any case wins;
 * none, or `null`, is `null`. Undefined when the markup is not a JSON object.
 */
export function nativeMarkup(adm: string): string | undefined {
  const parsed = parseJsonText(adm);
  if (parsed === undefined || (parsed.kind !== 'object' && parsed.kind !== 'null')) return undefined;
  const members = parsed.kind === 'object' ? parsed.members.filter(({ key }) => goFieldNameMatches(key, 'native')) : [];
  return goCompactJson(members.at(-1)?.value.text ?? 'null');
}

/**
 * Seconds until `X-Smt-Expires` (epoch milliseconds, never below 0), else the default 300. Go reads the header as an
 * int64 (`strconv.ParseInt`, smaato.go), so any value in its range counts, beyond 2^53 too, and the arithmetic is
 * int64's (BigInt here, wrapping as Go's does).
 */
export function ttlSeconds(expires: string | undefined, now: () => number): number {
  if (expires === undefined || !/^[+-]?\d+$/.test(expires)) return DEFAULT_TTL_SECONDS;
  const expiresAt = BigInt(expires);
  if (expiresAt < INT64_MIN || expiresAt > INT64_MAX) return DEFAULT_TTL_SECONDS;
  const ttl = BigInt.asIntN(64, expiresAt - BigInt(Math.trunc(now()))) / 1000n;
  return ttl < 0n ? 0 : Number(ttl);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function header(response: ResponseData, name: string): string | undefined {
  const wanted = name.toLowerCase();
  const key = Object.keys(response.headers ?? {}).find((candidate) => candidate.toLowerCase() === wanted);
  return key === undefined ? undefined : response.headers[key];
}

