/**
 * Sovrn bidder: every imp with a tag id goes in one call, the tag id as `tagid` and the params' floor as the imp's
 * floor when it has none. The device and the Sovrn user id travel as HTTP headers. Sovrn URL-encodes its markup.
 */
import {
  badInput,
  badServerResponse,
  isJsonObject,
  readBidderParams,
  readGoBidResponse,
  seatBids,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

/** `imp.ext.bidder` as Prebid Server's `ExtImpSovrn` reads it. */
interface SovrnParams {
  tagId: string;
  tagid: string;
  bidfloor: unknown;
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
        const tagId = read.params.tagid !== '' ? read.params.tagid : read.params.tagId;
        if (tagId === '') {
          errors.push(badInput("Missing required parameter 'tagid'"));
          continue;
        }
        const prepared: Imp = { ...imp, tagid: tagId };
        const floor = paramsFloor(read.params.bidfloor);
        if (!imp.bidfloor && floor > 0) prepared.bidfloor = floor;
        const video = imp.video;
        if (video && (video.mimes == null || !video.maxduration || video.protocols == null)) {
          errors.push(badInput('Missing required video parameter'));
          continue;
        }
        imps.push(prepared);
      }
      if (imps.length === 0) return { requests: [], errors };
      return {
        requests: [{ method: 'POST', uri: config.endpoint, body: { ...request, imp: imps }, headers: requestHeaders(request), impIds: imps.map((imp) => imp.id) }],
        errors,
      };
    },

    makeBids(request: BidRequest, _sent, response: ResponseData): MakeBidsResult {
      const decoded = readGoBidResponse(response, { decodeError: (detail) => badServerResponse(detail) });
      if ('result' in decoded) return decoded.result;

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid } of seatBids(decoded.body)) {
        if (!isJsonObject(bid)) continue;
        const typed = bid as Bid;
        // Markup that is not validly URL-encoded drops the bid without a word, as Prebid Server does.
        const adm = queryUnescape(typeof typed.adm === 'string' ? typed.adm : '');
        if (adm === undefined) continue;
        const imp = request.imp.find((candidate) => candidate.id === typed.impid);
        if (!imp) {
          errors.push(badInput(`Imp ID ${String(typed.impid ?? '')} in bid didn't match with any imp in the original request`));
          continue;
        }
        bids.push({ bid: typed.adm === undefined ? typed : { ...typed, adm }, type: imp.video ? 'video' : 'banner' });
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

function readParams(imp: Imp): { params: SovrnParams } | { error: string } {
  const read = readBidderParams(imp, 'openrtb_ext.ExtImpSovrn');
  if ('error' in read) return read;
  const source = read.params;
  const params: SovrnParams = { tagId: '', tagid: '', bidfloor: source.bidfloor };
  for (const key of ['tagId', 'tagid', 'adunitcode'] as const) {
    const value = source[key];
    if (value == null) continue;
    if (typeof value !== 'string') return { error: `cannot unmarshal openrtb_ext.ExtImpSovrn.${key}: expects a string` };
    if (key !== 'adunitcode') params[key] = value;
  }
  return { params };
}

/** The params floor: a number, or a string Go's `strconv.ParseFloat` reads as a finite decimal; else 0. */
function paramsFloor(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(value)) return Number(value);
  return 0;
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
