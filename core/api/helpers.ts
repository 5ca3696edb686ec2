import { badServerResponse, type BidderError } from './errors.js';
import type { ResponseData } from './adapter.js';
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
