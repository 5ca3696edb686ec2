/**
 * Outbrain bidder: the whole request in one call. The params of every imp are read in turn into one shared object,
 * as Prebid Server does, so the last imp's publisher (with the earlier imps' fields it leaves out) becomes the
 * site's or app's publisher, and an imp without a tag id takes the previous one. Native markup is rewritten for
 * trackers that only know impression trackers.
 */
import {
  badInput,
  checkResponseStatus,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  fieldIgnoringCase,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unexpectedStatusText,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type Imp,
  type JsonObject,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';
import { rewriteNativeMarkup } from './native-response.js';

/** Prebid Server's `ExtImpOutbrain`, filled imp after imp. A nil list is `undefined`. */
interface OutbrainParams {
  publisher: { id: string; name: string; domain: string };
  tagid: string;
  bcat?: string[];
  badv?: string[];
}

export function createOutbrainBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const params: OutbrainParams = { publisher: { id: '', name: '', domain: '' }, tagid: '' };
      // Imps whose params cannot be read are sent as they are; Prebid Server drops the errors it collects.
      const imps = request.imp.map((imp): Imp => {
        if (!readParamsInto(imp.ext, params)) return imp;
        return params.tagid !== '' ? { ...imp, tagid: params.tagid } : imp;
      });

      const body: BidRequest = encodeAsOpenrtb2Request({ ...request, imp: imps });
      const publisher = withoutEmptyStrings(params.publisher);
      if (body.site) body.site = { ...body.site, publisher };
      else if (body.app) body.app = { ...body.app, publisher };
      // Lists from the params replace the request's; an empty one removes them, as Go leaves empty lists out.
      for (const key of ['bcat', 'badv'] as const) {
        const list = params[key];
        if (list === undefined) continue;
        if (list.length > 0) body[key] = list;
        else delete body[key];
      }
      return { requests: [{ method: 'POST', uri: config.endpoint, body, impIds: imps.map((imp) => imp.id) }] };
    },

    makeBids(request: BidRequest, _sent, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response, {
        text: (status) => `${unexpectedStatusText(status)}.`,
        badRequestText: 'Unexpected status code: 400. Bad request from publisher. Run with request.debug = 1 for more info.',
      });
      if (statusResult) return statusResult;
      // Go returns its decoder's error as it is; one field of the wrong type fails the whole answer.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const type = bidType(bid.impid, request.imp);
          if (!type) {
            errors.push(badInput(`Failed to find native/banner/video impression "${bid.impid}" `));
            continue;
          }
          if (type !== 'native') {
            bids.push({ bid, type });
            continue;
          }
          const rewritten = rewriteNativeMarkup(bid.adm ?? '');
          // Go passes its decoder's error on as it is (FailedToUnmarshal).
          if ('error' in rewritten) errors.push(failedToUnmarshal(rewritten.error));
          else bids.push({ bid: { ...bid, adm: rewritten.adm }, type });
        }
      }
      return { currency: decoded.value.cur || undefined, bids, errors };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/**
 * Decodes an imp's params over the shared object, as Go's decoder does: fields present replace the previous
 * values, a null list clears it, anything absent (or a null string) leaves it. Returns false when the params cannot
 * be decoded, leaving the object as it was.
 */
function readParamsInto(ext: unknown, params: OutbrainParams): boolean {
  // Go reads `"ext": null` as an empty extension, whose missing bidder params then fail like absent ones.
  if (!isJsonObject(ext)) return false;
  const raw = fieldIgnoringCase(ext, 'bidder');
  if (raw === null) return true;
  if (!isJsonObject(raw) || !isValidParams(raw)) return false;
  const publisher = fieldIgnoringCase(raw, 'publisher');
  if (isJsonObject(publisher)) {
    for (const key of ['id', 'name', 'domain'] as const) {
      const value = fieldIgnoringCase(publisher, key);
      if (typeof value === 'string') params.publisher[key] = value;
    }
  }
  const tagid = fieldIgnoringCase(raw, 'tagid');
  if (typeof tagid === 'string') params.tagid = tagid;
  for (const key of ['bcat', 'badv'] as const) {
    const list = fieldIgnoringCase(raw, key);
    if (list === null) params[key] = undefined;
    else if (Array.isArray(list)) params[key] = list.map((item) => (typeof item === 'string' ? item : ''));
  }
  return true;
}

/** Whether Go decodes the params without error: every known field (any case) of its type, `null` meaning "unset". */
function isValidParams(raw: JsonObject): boolean {
  const publisher = fieldIgnoringCase(raw, 'publisher');
  if (publisher != null) {
    if (!isJsonObject(publisher)) return false;
    if (['id', 'name', 'domain'].some((key) => !isStringOrNull(fieldIgnoringCase(publisher, key)))) return false;
  }
  if (!isStringOrNull(fieldIgnoringCase(raw, 'tagid'))) return false;
  return ['bcat', 'badv'].every((key) => {
    const list = fieldIgnoringCase(raw, key);
    return list == null || (Array.isArray(list) && list.every((item) => item === null || typeof item === 'string'));
  });
}

function isStringOrNull(value: unknown): boolean {
  return value == null || typeof value === 'string';
}

/** Go's `Publisher` with `omitempty` strings: empty ones are left out. */
function withoutEmptyStrings(publisher: OutbrainParams['publisher']): Record<string, string> {
  return Object.fromEntries(Object.entries(publisher).filter(([, value]) => value !== ''));
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/** Native, then banner, then video, from the first imp with that id offering one of them. */
function bidType(impId: string, imps: Imp[]): MediaType | undefined {
  for (const imp of imps) {
    if (imp.id !== impId) continue;
    if (imp.native) return 'native';
    if (imp.banner) return 'banner';
    if (imp.video) return 'video';
  }
  return undefined;
}
