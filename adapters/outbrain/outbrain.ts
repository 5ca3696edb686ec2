/**
 * Outbrain bidder: the whole request in one call. The params of every imp are read in turn into one shared object,
 * as Prebid Server does, so the last imp's publisher (with the earlier imps' fields it leaves out) becomes the
 * site's or app's publisher, and an imp without a tag id takes the previous one. Native markup is rewritten for
 * trackers that only know impression trackers.
 */
import {
  badInput,
  bidResponseCurrency,
  isJsonObject,
  readGoBidResponse,
  seatBids,
  unexpectedStatusText,
  unknownError,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
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

      const body: BidRequest = { ...request, imp: imps };
      const publisher = withoutEmptyStrings(params.publisher);
      if (request.site) body.site = { ...request.site, publisher };
      else if (request.app) body.app = { ...request.app, publisher };
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
      const decoded = readGoBidResponse(response, { status: {
        text: (status) => `${unexpectedStatusText(status)}.`,
        badRequestText: 'Unexpected status code: 400. Bad request from publisher. Run with request.debug = 1 for more info.',
      } });
      if ('result' in decoded) return decoded.result;

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid } of seatBids(decoded.body)) {
        if (!isJsonObject(bid)) continue;
        const impId = typeof bid.impid === 'string' ? bid.impid : '';
        const type = bidType(impId, request.imp);
        if (!type) {
          errors.push(badInput(`Failed to find native/banner/video impression "${impId}" `));
          continue;
        }
        let typed = bid as Bid;
        if (type === 'native') {
          const rewritten = rewriteNativeMarkup(typeof bid.adm === 'string' ? bid.adm : '');
          if ('error' in rewritten) {
            errors.push(unknownError(rewritten.error));
            continue;
          }
          typed = { ...typed, adm: rewritten.adm };
        }
        bids.push({ bid: typed, type });
      }
      return { currency: bidResponseCurrency(decoded.body), bids, errors };
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
  if (!isJsonObject(ext)) return false;
  const raw = ext.bidder;
  if (raw === null) return true;
  if (!isJsonObject(raw) || !isValidParams(raw)) return false;
  if (isJsonObject(raw.publisher)) {
    for (const key of ['id', 'name', 'domain'] as const) {
      const value = raw.publisher[key];
      if (typeof value === 'string') params.publisher[key] = value;
    }
  }
  if (typeof raw.tagid === 'string') params.tagid = raw.tagid;
  for (const key of ['bcat', 'badv'] as const) {
    if (raw[key] === null) params[key] = undefined;
    else if (Array.isArray(raw[key])) params[key] = (raw[key] as unknown[]).map((item) => (typeof item === 'string' ? item : ''));
  }
  return true;
}

function isValidParams(raw: JsonObject): boolean {
  const publisher = raw.publisher;
  if (publisher != null) {
    if (!isJsonObject(publisher)) return false;
    if (['id', 'name', 'domain'].some((key) => publisher[key] != null && typeof publisher[key] !== 'string')) return false;
  }
  if (raw.tagid != null && typeof raw.tagid !== 'string') return false;
  return ['bcat', 'badv'].every((key) => raw[key] == null || (Array.isArray(raw[key]) && (raw[key] as unknown[]).every((item) => item === null || typeof item === 'string')));
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
