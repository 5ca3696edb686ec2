/**
 * Outbrain bidder: the whole request in one call. The params of every imp are read in turn into one shared object,
 * as Prebid Server does, so the last imp's publisher (with the earlier imps' fields it leaves out) becomes the
 * site's or app's publisher, and an imp without a tag id takes the previous one. Native markup is rewritten for
 * trackers that only know impression trackers.
 */
import {
  badInput,
  checkResponseStatus,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  goFieldNameMatches,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unexpectedStatusText,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type Imp,
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
 * Decodes an imp's params over the shared object as json-iterator does (outbrain.go:34-50): members in the order they
 * come, names matched ignoring ASCII case; a null string becomes "" (the reader returns "" for null), a null list is
 * nil, a null publisher is left as it was. The first value of the wrong type stops the decoding, and what was decoded
 * before it stays in the shared object (Go decodes in place). Returns false when the params could not be decoded, as
 * Go then skips the imp's tag id.
 */
function readParamsInto(ext: unknown, params: OutbrainParams): boolean {
  // `imp.ext` is first decoded into `adapters.ExtImpBidder`: a `prebid` or `ae` of the wrong type fails it, and the
  // imp's params are then skipped even when they are fine. `"ext": null` is an empty extension, whose missing bidder
  // params then fail like absent ones.
  const impExt = decodeExtImpBidder(ext);
  if ('error' in impExt) return false;
  const raw = impExt.value.bidder;
  if (raw === null) return true;
  if (!isJsonObject(raw)) return false;
  for (const [key, value] of Object.entries(raw)) {
    if (goFieldNameMatches(key, 'publisher')) {
      if (value === null) continue;
      if (!isJsonObject(value)) return false;
      for (const [publisherKey, publisherValue] of Object.entries(value)) {
        const name = (['id', 'name', 'domain'] as const).find((candidate) => goFieldNameMatches(publisherKey, candidate));
        if (name === undefined) continue;
        const text = goStringValue(publisherValue);
        if (text === undefined) return false;
        params.publisher[name] = text;
      }
    } else if (goFieldNameMatches(key, 'tagid')) {
      const text = goStringValue(value);
      if (text === undefined) return false;
      params.tagid = text;
    } else {
      const name = (['bcat', 'badv'] as const).find((candidate) => goFieldNameMatches(key, candidate));
      if (name === undefined) continue;
      if (value === null) {
        params[name] = undefined;
        continue;
      }
      if (!Array.isArray(value)) return false;
      const list: string[] = [];
      params[name] = list;
      for (const item of value) {
        const text = goStringValue(item);
        // The slice has already grown to hold the entry that fails, which is left "".
        list.push(text ?? '');
        if (text === undefined) return false;
      }
    }
  }
  return true;
}

/** A Go string field's value: the text, "" for null, undefined for anything else (a decoding error). */
function goStringValue(value: unknown): string | undefined {
  if (value === null) return '';
  return typeof value === 'string' ? value : undefined;
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
