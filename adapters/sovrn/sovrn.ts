/**
 * Sovrn bidder: every imp with a tag id goes in one call, the tag id as `tagid` and the params' floor as the imp's
 * floor when it has none. The device and the Sovrn user id travel as HTTP headers. Sovrn URL-encodes its markup.
 */
import {
  badInput,
  badServerResponse,
  checkResponseStatus,
  decodeOpenrtb2BidResponse,
  decodeBidderParams,
  decodeExtImpBidder,
  impsOfSentRequest,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unknownError,
  type Bid,
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

/** `imp.ext.bidder` as Prebid Server's `ExtImpSovrn` reads it. */
interface SovrnParams {
  TagId: string;
  Tagid: string;
  BidFloor: unknown;
  AdUnitCode: string;
}

export function createSovrnBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const errors: BidderError[] = [];
      const imps: Imp[] = [];
      for (const imp of request.imp) {
        const read = readParams(imp);
        if ('error' in read) {
          errors.push(badInput(read.error));
          continue;
        }
        const tagId = read.params.Tagid !== '' ? read.params.Tagid : read.params.TagId;
        if (tagId === '') {
          errors.push(badInput("Missing required parameter 'tagid'"));
          continue;
        }
        const prepared: Imp = { ...imp, tagid: tagId };
        const floor = paramsFloor(read.params.BidFloor);
        if (!imp.bidfloor && floor > 0) prepared.bidfloor = floor;
        const video = imp.video;
        if (video && (video.mimes == null || !video.maxduration || video.protocols == null)) {
          errors.push(badInput('Missing required video parameter'));
          continue;
        }
        imps.push(prepared);
      }
      if (imps.length === 0) return { requests: [], errors };
      // A params floor of "Inf" passes Go's ParseFloat; JSON cannot carry it, so Prebid Server sends nothing at all.
      if (imps.some((imp) => imp.bidfloor === Infinity)) return { requests: [], errors: [...errors, unknownError('json: unsupported value: +Inf')] };
      return {
        requests: [
          {
            method: 'POST',
            uri: config.endpoint,
            body: encodeAsOpenrtb2Request({ ...request, imp: imps }),
            headers: requestHeaders(request),
            impIds: imps.map((imp) => imp.id),
          },
        ],
        errors,
      };
    },

    makeBids(request: BidRequest, sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [badServerResponse(decoded.error)] };

      // Prebid Server's adapter replaces the request's imps with the ones it sent, and looks bids up among those.
      const imps = impsOfSentRequest(sent) ?? request.imp;
      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          // Markup that is not validly URL-encoded drops the bid without a word, as Prebid Server does.
          const adm = queryUnescape(bid.adm ?? '');
          if (adm === undefined) continue;
          const imp = imps.find((candidate) => candidate.id === bid.impid);
          if (!imp) {
            errors.push(badInput(`Imp ID ${bid.impid} in bid didn't match with any imp in the original request`));
            continue;
          }
          const unescaped: Bid = { ...bid, adm };
          if (adm === '') delete unescaped.adm;
          bids.push({ bid: unescaped, type: imp.video ? 'video' : 'banner' });
        }
      }
      // Sovrn bids in USD; the response's `cur` is not read.
      return { currency: 'USD', bids, errors };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

function requestHeaders(request: BidRequest): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const device = request.device;
  if (device) {
    setIfNonEmpty(headers, 'User-Agent', device.ua);
    setIfNonEmpty(headers, 'X-Forwarded-For', device.ip);
    setIfNonEmpty(headers, 'Accept-Language', device.language);
    if (device.dnt != null) setIfNonEmpty(headers, 'DNT', String(device.dnt));
  }
  const userId = typeof request.user?.buyeruid === 'string' ? request.user.buyeruid.trim() : '';
  if (userId !== '') headers.Cookie = `ljt_reader=${userId}`;
  return headers;
}

function setIfNonEmpty(headers: Record<string, string>, name: string, value: unknown): void {
  if (typeof value === 'string' && value !== '') headers[name] = value;
}

/**
 * `ExtImpSovrn`'s fields by JSON name. Two of them differ only in case, so Prebid Server's decoder matches a key
 * exactly first and only then in lower case: `tagId` is `TagId`, while `TagId` or `TAGID` is `Tagid`.
 */
const PARAM_FIELDS: Readonly<Record<string, keyof SovrnParams>> = { tagId: 'TagId', tagid: 'Tagid', bidfloor: 'BidFloor', adunitcode: 'AdUnitCode' };

/** The params as Prebid Server decodes them, with its decoder's texts. */
function readParams(imp: Imp): { params: SovrnParams } | { error: string } {
  // `imp.ext` into `adapters.ExtImpBidder` (its `prebid` and `ae` typed), then its `bidder`; a `null` imp.ext is Go's
  // zero value, with no params to decode, as an absent one.
  const ext = decodeExtImpBidder(imp.ext);
  if ('error' in ext) return ext;
  const decoded = decodeBidderParams(ext.value.bidder, 'openrtb_ext.ExtImpSovrn');
  if ('error' in decoded) return decoded;
  const bidder = decoded.params;
  const params: SovrnParams = { TagId: '', Tagid: '', BidFloor: undefined, AdUnitCode: '' };
  for (const key in bidder) {
    if (!Object.hasOwn(bidder, key)) continue;
    const field = Object.hasOwn(PARAM_FIELDS, key) ? PARAM_FIELDS[key] : Object.hasOwn(PARAM_FIELDS, key.toLowerCase()) ? PARAM_FIELDS[key.toLowerCase()] : undefined;
    if (field === undefined) continue;
    const value = bidder[key];
    // A member set to undefined is not in the JSON the bidder decodes.
    if (value === undefined) continue;
    if (field === 'BidFloor') {
      params.BidFloor = value;
      continue;
    }
    // Go's decoder empties a string field on `null`.
    if (value !== null && typeof value !== 'string') return { error: `cannot unmarshal openrtb_ext.ExtImpSovrn.${field}: expects " or n, but found ${JSON.stringify(value)[0]}` };
    params[field] = value ?? '';
  }
  return { params };
}

/** The params floor: a number, or a string Go's `strconv.ParseFloat` reads without error; else 0. */
function paramsFloor(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return 0;
  return goParseFloat(value) ?? 0;
}

/**
 * Go's `strconv.ParseFloat(text, 64)`: undefined where Go returns an error. It reads Go's float literals: decimal, or
 * hexadecimal (`0x1.8p3`, whose `p` exponent is required), with `_` between digits (`1_000`); `inf`, `infinity` (either
 * signed) and `nan` in any case. A value out of float64's range is an error (ParseFloat's ErrRange), not an infinity.
 */
export function goParseFloat(text: string): number | undefined {
  const special = /^(?:([+-]?)(inf|infinity)|nan)$/i.exec(text);
  if (special) return special[2] === undefined ? NaN : special[1] === '-' ? -Infinity : Infinity;
  const hex = /^([+-]?)0[xX]([0-9a-fA-F_]*\.?[0-9a-fA-F_]*)[pP]([+-]?[0-9][0-9_]*)$/.exec(text);
  const decimal = /^[+-]?([0-9_]*\.?[0-9_]*)(?:[eE][+-]?[0-9][0-9_]*)?$/.exec(text);
  // The mantissa needs a digit (an underscore is not one), and underscores must sit between digits.
  const hasDigit = hex ? /[0-9a-fA-F]/.test(hex[2]!) : decimal !== null && /[0-9]/.test(decimal[1]!);
  if (!hasDigit || (text.includes('_') && !underscoresBetweenDigits(text))) return undefined;
  let value: number;
  if (hex) {
    const [whole = '', fraction = ''] = hex[2]!.replaceAll('_', '').split('.');
    const exponent = Number(hex[3]!.replaceAll('_', '')) - 4 * fraction.length;
    value = Number(BigInt(`0x${whole}${fraction}`)) * 2 ** exponent;
    if (hex[1] === '-') value = -value;
  } else {
    value = Number(text.replaceAll('_', ''));
  }
  return Number.isFinite(value) ? value : undefined;
}

/** Go's `underscoreOK` (strconv): each `_` follows a digit or the base prefix, and a digit follows it. */
function underscoresBetweenDigits(text: string): boolean {
  let number = /^[+-]/.test(text) ? text.slice(1) : text;
  let saw: 'start' | 'digit' | 'underscore' | 'other' = 'start';
  let hexDigits = false;
  if (/^0[bBoOxX]/.test(number)) {
    saw = 'digit';
    hexDigits = /^0[xX]/.test(number);
    number = number.slice(2);
  }
  for (const char of number) {
    if (/[0-9]/.test(char) || (hexDigits && /[a-fA-F]/.test(char))) saw = 'digit';
    else if (char === '_') {
      if (saw !== 'digit') return false;
      saw = 'underscore';
    } else {
      if (saw === 'underscore') return false;
      saw = 'other';
    }
  }
  return saw !== 'underscore';
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/**
 * Go's `url.QueryUnescape`: `+` is a space and `%XX` a byte; a `%` without two hex digits after it is an error
 * (undefined). The decoded bytes are read as UTF-8.
 */
export function queryUnescape(text: string): string | undefined {
  const input = Buffer.from(text, 'utf8');
  const output = Buffer.alloc(input.length);
  let length = 0;
  for (let i = 0; i < input.length; i++) {
    const byte = input[i]!;
    if (byte === 0x25) {
      const hex = input.subarray(i + 1, i + 3).toString('latin1');
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
      output[length++] = parseInt(hex, 16);
      i += 2;
    } else {
      output[length++] = byte === 0x2b ? 0x20 : byte;
    }
  }
  return output.subarray(0, length).toString('utf8');
}
