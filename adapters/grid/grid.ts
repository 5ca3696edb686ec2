/**
 * Grid (TheMediaGrid) bidder: every imp with a Grid `uid` goes to Grid in one call. The request carries Grid's
 * consolidated keywords in `ext.keywords` (see keywords.ts), an imp with an ad server slot also gets it as `gpid`,
 * and native requests travel parsed, as `native.request_native`. Bids are typed by Grid's `content_type`, else by
 * the imp they answer; native markup may come as an object in `adm_native`.
 */
import {
  badInput,
  badServerResponse,
  isJsonObject,
  MEDIA_TYPES,
  PBS_STATUS_CHECK,
  readBidResponse,
  seatBids,
  unknownError,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Imp,
  type JsonObject,
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
        else imps.push(withNativeParsed(withGpid(imp)));
      }
      if (imps.length === 0) return { requests: [], errors: [...errors, badInput('No valid impressions for grid')] };

      // Keywords come from the first imp of the request as it came in, valid or not.
      const body: BidRequest = { ...request, imp: imps };
      const ext = extWithKeywords(request);
      if (ext) body.ext = ext;
      else delete body.ext;
      return { requests: [{ method: 'POST', uri: config.endpoint, body, headers: { ...HEADERS }, impIds: imps.map((imp) => imp.id) }], errors };
    },

    makeBids(request, _sent, response) {
      const read = readBidResponse(response, PBS_STATUS_CHECK);
      if ('result' in read) return read.result;

      const bids: TypedBid[] = [];
      for (const { bid } of seatBids(read.body)) {
        // Any bid that cannot be typed drops the whole answer, as it does in Prebid Server.
        if (!isJsonObject(bid)) return { bids: [], errors: [badServerResponse('Bad server response: a bid is not an object')] };
        const type = bidType(bid, request);
        if (typeof type !== 'string') return { bids: [], errors: [type] };
        bids.push(typedBid(bid, type));
      }
      // Grid prices in USD; the response's `cur` is not read.
      return { currency: 'USD', bids };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------------------

function checkImp(imp: Imp): BidderError | undefined {
  if (!isJsonObject(imp.ext)) return unknownError(`imp ${imp.id}: cannot read imp.ext: not an object`);
  const params = imp.ext.bidder;
  if (!isJsonObject(params)) return unknownError(`imp ${imp.id}: cannot read the grid params: ext.bidder is not an object`);
  if (params.uid !== undefined && params.uid !== null && !Number.isInteger(params.uid)) {
    return unknownError(`imp ${imp.id}: cannot read the grid params: uid is not an integer`);
  }
  return params.uid ? undefined : badInput('uid is empty');
}

/**
 * An imp whose `ext.data.adserver.adslot` names a slot gets it as `ext.gpid`. Its ext is then rewritten to the keys
 * Grid reads (prebid, bidder, data with pbadslot and adserver name/adslot, gpid, skadn, context), as Prebid Server
 * rewrites it; an ext of another shape is left alone.
 */
function withGpid(imp: Imp): Imp {
  const ext = imp.ext as JsonObject;
  const data = ext.data ?? undefined;
  const adserver = isJsonObject(data) ? (data.adserver ?? undefined) : undefined;
  if (!isJsonObject(adserver) || typeof adserver.adslot !== 'string' || adserver.adslot === '') return imp;
  if (!isJsonObject(data) || !isOptional(data.pbadslot, 'string') || !isOptional(adserver.name, 'string') || !isOptional(ext.gpid, 'string')) return imp;
  if (ext.prebid !== undefined && ext.prebid !== null && !isJsonObject(ext.prebid)) return imp;

  const rewritten: JsonObject = {};
  if (isJsonObject(ext.prebid)) rewritten.prebid = ext.prebid;
  rewritten.bidder = ext.bidder;
  rewritten.data = {
    ...(typeof data.pbadslot === 'string' && data.pbadslot !== '' ? { pbadslot: data.pbadslot } : {}),
    adserver: { name: typeof adserver.name === 'string' ? adserver.name : '', adslot: adserver.adslot },
  };
  rewritten.gpid = adserver.adslot;
  for (const key of ['skadn', 'context']) if (ext[key] !== undefined) rewritten[key] = ext[key];
  return { ...imp, ext: rewritten };
}

function isOptional(value: unknown, type: 'string'): boolean {
  return value === undefined || value === null || typeof value === type;
}

/** Grid takes the native request as JSON: `native.request` (a string) becomes `native.request_native`, parsed when it is an object. */
function withNativeParsed(imp: Imp): Imp {
  if (!isJsonObject(imp.native) || typeof imp.native.request !== 'string') return imp;
  const { request, ...native } = imp.native;
  return { ...imp, native: { ...native, request_native: parsedObject(request) } };
}

function parsedObject(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed === null || isJsonObject(parsed) ? parsed : text;
  } catch {
    return text;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Bids
// ---------------------------------------------------------------------------------------------------------------

/** Grid's `content_type` when it sends one, else the first of banner, video, native the imp offers. */
function bidType(bid: JsonObject, request: BidRequest): MediaType | BidderError {
  const impId = typeof bid.impid === 'string' ? bid.impid : '';
  const contentType = bid.content_type;
  if (contentType !== undefined && contentType !== null && contentType !== '') {
    return (MEDIA_TYPES as readonly unknown[]).includes(contentType)
      ? (contentType as MediaType)
      : badServerResponse(`Unknown content type ${JSON.stringify(contentType)} for ID: "${impId}"`);
  }
  const imp = (Array.isArray(request.imp) ? request.imp : []).find((candidate) => candidate.id === impId);
  if (!imp) return badServerResponse(`Failed to find impression for ID: "${impId}"`);
  if (imp.banner) return 'banner';
  if (imp.video) return 'video';
  if (imp.native) return 'native';
  return badServerResponse(`Unknown impression type for ID: "${impId}"`);
}

/** The bid as OpenRTB: native markup from `adm_native` when `adm` is empty, Grid's own fields removed. */
function typedBid(gridBid: JsonObject, type: MediaType): TypedBid {
  const { adm_native: admNative, content_type: _contentType, ...bid } = gridBid;
  if (admNative !== undefined && (bid.adm === undefined || bid.adm === '')) bid.adm = JSON.stringify(admNative);
  const typed: TypedBid = { bid: bid as Bid, type };
  const demandSource = demandSourceOf(bid.ext);
  if (demandSource) typed.meta = { networkName: demandSource };
  return typed;
}

function demandSourceOf(ext: unknown): string | undefined {
  const bidder = isJsonObject(ext) ? ext.bidder : undefined;
  const grid = isJsonObject(bidder) ? bidder.grid : undefined;
  const source = isJsonObject(grid) ? grid.demandSource : undefined;
  return typeof source === 'string' && source !== '' ? source : undefined;
}
