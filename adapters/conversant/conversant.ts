/**
 * Epsilon (formerly Conversant) bidder: the whole request in one call, in USD. The first imp's site id becomes the
 * site's (or app's) id; each imp gets the display manager, and its params fill the floor, tag id, secure flag,
 * position and, for video, the player's API, protocols, MIME types and maximum duration. One unusable imp fails the
 * whole request.
 */
import {
  badInput,
  badServerResponse,
  BidderErrorCode,
  checkResponseStatus,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  fieldIgnoringCase,
  goDecodeErrorPrintedWithD,
  isJsonObject,
  encodeAsOpenrtb2Request,
  withFloorInCurrency,
  type Banner,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type RequestInfo,
  type ResponseData,
  type Video,
} from '../../core/api/index.js';

const HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };
const DISPLAY_MANAGER = 'prebid-s2s';

/** `imp.ext.bidder` as Prebid Server's `ExtImpConversant` reads it (Go's int8 fields hold -128..127 only). */
interface ConversantParams {
  siteId: string;
  secure?: number;
  tagId: string;
  position?: number;
  bidfloor: number;
  mimes?: string[];
  api?: number[];
  protocols?: number[];
  maxduration?: number;
}

export function createConversantBidder(config: BidderConfig): Bidder {
  // Prebid Server reports its own version as the display manager version: Gavel's, unless the host states another in
  // extra.hostVersion.
  const hostVersion = typeof config.extra.hostVersion === 'string' ? config.extra.hostVersion : (config.host.version ?? '');
  return {
    makeRequests(request: BidRequest, info: RequestInfo): MakeRequestsResult {
      const body: BidRequest = { ...request };
      // The backend rejects any other currency.
      if (Array.isArray(request.cur) && request.cur.length > 0 && request.cur[0] !== 'USD') body.cur = ['USD'];
      const imps: Imp[] = [];
      for (const [index, imp] of request.imp.entries()) {
        // `imp.ext` into `adapters.ExtImpBidder` (its `prebid` and `ae` typed; `null` the zero value, without params).
        const ext = decodeExtImpBidder(imp.ext);
        if ('error' in ext) return failure(`Impression[${index}] missing ext object`);
        const params = readParams(ext.value.bidder);
        if (!params) return failure(`Impression[${index}] missing ext.bidder object`);
        if (params.siteId === '') return failure(`Impression[${index}] requires ext.bidder.site_id`);
        if (index === 0) {
          if (request.site) body.site = { ...request.site, id: params.siteId };
          else if (request.app) body.app = { ...request.app, id: params.siteId };
        }
        const prepared = prepareImp(imp, params, hostVersion, info);
        if (typeof prepared === 'string') return failure(prepared);
        imps.push(prepared);
      }
      body.imp = imps;
      return { requests: [{ method: 'POST', uri: config.endpoint, body: encodeAsOpenrtb2Request(body), headers: { ...HEADERS }, impIds: imps.map((imp) => imp.id) }] };
    },

    makeBids(request: BidRequest, _sent, response: ResponseData): MakeBidsResult {
      // Epsilon's Go adapter words its own status check, and does not set a 400 apart.
      const statusResult = checkResponseStatus(response, { text: (status) => `Unexpected status code: ${status}`, badRequestCode: BidderErrorCode.BadServerResponse });
      if (statusResult) return statusResult;
      // Go formats the decoder's error with %d, which prints the error's struct around its text.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [badServerResponse(`bad server response: ${goDecodeErrorPrintedWithD(decoded.error)}. `)] };
      const seatbids = decoded.value.seatbid;
      if (seatbids.length === 0) return { bids: [], errors: [badServerResponse('Empty bid request')] };

      // Only the first seat is read.
      return { currency: 'USD', bids: seatbids[0]!.bid.map((bid) => ({ bid, type: bidType(bid.impid, request.imp) })) };
    },
  };
}

function failure(message: string): MakeRequestsResult {
  return { requests: [], errors: [badInput(message)] };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/** The imp Epsilon expects, or the error text when its floor cannot be converted to USD. */
function prepareImp(imp: Imp, params: ConversantParams, hostVersion: string, info: RequestInfo): Imp | string {
  const prepared: Imp = { ...imp, displaymanager: DISPLAY_MANAGER };
  if (hostVersion !== '') prepared.displaymanagerver = hostVersion;
  if (!((imp.bidfloor ?? 0) > 0) && params.bidfloor > 0) prepared.bidfloor = params.bidfloor;
  if (params.tagId !== '') prepared.tagid = params.tagId;
  // The imp's own secure flag wins unless it is unset or 0.
  if (!imp.secure && params.secure !== undefined) prepared.secure = params.secure;

  if (imp.banner) {
    prepared.banner = withPosition(imp.banner, params.position);
  } else if (imp.video) {
    const video: Video = withPosition(imp.video, params.position);
    if (params.api && params.api.length > 0) video.api = [...params.api];
    if (params.protocols && params.protocols.length > 0) video.protocols = [...params.protocols];
    if (params.mimes && params.mimes.length > 0) video.mimes = [...params.mimes];
    if (params.maxduration !== undefined) video.maxduration = params.maxduration;
    prepared.video = video;
  }

  const floored = withFloorInCurrency(prepared, 'USD', info);
  return 'error' in floored ? `Unable to convert provided bid floor currency from ${prepared.bidfloorcur} to USD` : floored.imp;
}

/** The params position replaces the ad unit's, even when the params have none. */
function withPosition<T extends Banner | Video>(object: T, position: number | undefined): T {
  const copy: T = { ...object };
  if (position === undefined) delete copy.pos;
  else copy.pos = position;
  return copy;
}

/**
 * The params, or undefined when Go could not decode them into `ExtImpConversant` (keys matched ignoring case, null
 * the zero value, in a list too).
 */
function readParams(raw: unknown): ConversantParams | undefined {
  if (raw === null) return { siteId: '', tagId: '', bidfloor: 0 };
  if (!isJsonObject(raw)) return undefined;
  const field = (name: string): unknown => fieldIgnoringCase(raw, name);
  const siteId = decode(field('site_id'), isString);
  const tagId = decode(field('tag_id'), isString);
  const bidfloor = decode(field('bidfloor'), isNumber);
  const secure = decode(field('secure'), isInt8);
  const position = decode(field('position'), isInt8);
  const maxduration = decode(field('maxduration'), Number.isSafeInteger);
  const mimes = decodeList(field('mimes'), isString, '');
  const api = decodeList(field('api'), isInt8, 0);
  const protocols = decodeList(field('protocols'), isInt8, 0);
  const fields = [siteId, tagId, bidfloor, secure, position, maxduration, mimes, api, protocols];
  if (fields.some((value) => value === INVALID)) return undefined;
  return {
    siteId: (siteId as string | undefined) ?? '',
    tagId: (tagId as string | undefined) ?? '',
    bidfloor: (bidfloor as number | undefined) ?? 0,
    secure: secure as number | undefined,
    position: position as number | undefined,
    maxduration: maxduration as number | undefined,
    mimes: mimes as string[] | undefined,
    api: api as number[] | undefined,
    protocols: protocols as number[] | undefined,
  };
}

const INVALID = Symbol('invalid');

/** A field as Go decodes it: absent or null is unset, a value of the wrong type fails the whole object. */
function decode(value: unknown, accepts: (value: unknown) => boolean): unknown {
  if (value === undefined || value === null) return undefined;
  return accepts(value) ? value : INVALID;
}

/** A list as Go decodes it into a slice: a null entry is the element type's zero value. */
function decodeList(value: unknown, accepts: (value: unknown) => boolean, zero: string | number): unknown {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return INVALID;
  const entries = value.map((entry: unknown) => (entry === null ? zero : entry));
  return entries.every(accepts) ? entries : INVALID;
}

const isString = (value: unknown): boolean => typeof value === 'string';
const isNumber = (value: unknown): boolean => typeof value === 'number';
const isInt8 = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= -128 && (value as number) <= 127;

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/** Native, then audio, then video, by the imp's media types; banner otherwise (an unknown imp included). */
function bidType(impId: unknown, imps: Imp[]): MediaType {
  const imp = imps.find((candidate) => candidate.id === impId);
  if (imp?.native) return 'native';
  if (imp?.audio) return 'audio';
  if (imp?.video) return 'video';
  return 'banner';
}
