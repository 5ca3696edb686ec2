/**
 * Sharethrough bidder: one call per imp and media type. Each call carries one single-format copy of the imp, tagged
 * with its placement key, with its floor in USD; the request's blocked advertisers and categories grow with each
 * imp's params, and `source.ext` says which adapter and host version sent it. Bids say their type in
 * `bid.ext.prebid.type`.
 */
import {
  badInput,
  badServerResponse,
  BidderErrorCode,
  isJsonObject,
  omitEmptyRequestFields,
  readBidderParams,
  readGoBidResponse,
  seatBids,
  unexpectedStatusText,
  unknownError,
  withFloorInCurrency,
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
  type RequestData,
  type RequestInfo,
  type ResponseData,
  type Source,
  type TypedBid,
} from '../../core/api/index.js';

/** The adapter version Sharethrough knows Prebid Server's adapter by (`source.ext.str`). */
const ADAPTER_VERSION = '10.0';
const HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };

interface SharethroughParams {
  pkey: string;
  badv: string[];
  bcat: string[];
}

export function createSharethroughBidder(config: BidderConfig): Bidder {
  // Prebid Server reports its own version in source.ext.version: Gavel's, unless the host states another in extra.hostVersion.
  const hostVersion = typeof config.extra.hostVersion === 'string' ? config.extra.hostVersion : (config.host.version ?? '');
  return {
    makeRequests(request: BidRequest, info: RequestInfo): MakeRequestsResult {
      const source = versionedSource(request.source, hostVersion);
      const requests: RequestData[] = [];
      const errors: BidderError[] = [];
      // Blocked categories and advertisers accumulate: each imp's call also carries those of the imps before it.
      let bcat = stringList(request.bcat);
      let badv = stringList(request.badv);
      for (const imp of request.imp) {
        const read = readParams(imp);
        if ('error' in read) {
          errors.push(unknownError(read.error));
          continue;
        }
        const converted = withFloorInCurrency(imp, 'USD', info);
        // A floor that cannot be converted stops the whole request, calls already built included.
        if ('error' in converted) return { requests: [], errors: [unknownError(converted.error)] };
        const prepared: Imp = { ...converted.imp, tagid: read.params.pkey };
        bcat = [...bcat, ...read.params.bcat];
        badv = [...badv, ...read.params.badv];

        const single = singleFormatImps(prepared);
        if (single.length === 0) {
          errors.push(badInput('Invalid MediaType. Sharethrough only supports Banner, Video and Native.'));
          continue;
        }
        for (const one of single) {
          const body = omitEmptyRequestFields({ ...request, source, bcat, badv, imp: [one] });
          requests.push({ method: 'POST', uri: config.endpoint, body, headers: { ...HEADERS }, impIds: [one.id] });
        }
      }
      return { requests, errors };
    },

    makeBids(_request: BidRequest, _sent, response: ResponseData): MakeBidsResult {
      // Sharethrough's Go adapter reports statuses other than 400 itself, as generic errors.
      const decoded = readGoBidResponse(response, { status: {
        text: (status) => `unexpected status code: ${status}. Run with request.debug = 1 for more info`,
        badRequestText: unexpectedStatusText(400),
        code: BidderErrorCode.Unknown,
      } });
      if ('result' in decoded) return decoded.result;

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid } of seatBids(decoded.body)) {
        if (!isJsonObject(bid)) continue;
        const type = bidType(bid, errors);
        // Prebid Server keeps a bid it cannot type (with an empty type); a typed bid is all the SDK can return.
        if (type) bids.push({ bid: bid as Bid, type });
      }
      return { currency: 'USD', bids, errors };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

function versionedSource(source: Source | undefined, hostVersion: string): Source {
  const ext = isJsonObject(source?.ext) ? source.ext : {};
  return { ...source, ext: { ...ext, str: ADAPTER_VERSION, version: hostVersion } };
}

function readParams(imp: Imp): { params: SharethroughParams } | { error: string } {
  const read = readBidderParams(imp, 'openrtb_ext.ExtImpSharethrough');
  if ('error' in read) return read;
  const source = read.params;
  if (source.pkey != null && typeof source.pkey !== 'string') return { error: 'cannot unmarshal openrtb_ext.ExtImpSharethrough.pkey: expects a string' };
  for (const key of ['badv', 'bcat'] as const) {
    const list = source[key];
    if (list != null && !(Array.isArray(list) && list.every((item) => typeof item === 'string'))) {
      return { error: `cannot unmarshal openrtb_ext.ExtImpSharethrough.${key}: expects a list of strings` };
    }
  }
  return { params: { pkey: (source.pkey as string | undefined) ?? '', badv: stringList(source.badv), bcat: stringList(source.bcat) } };
}

/** One copy of the imp per media type it offers (banner, video, native, in that order); audio is dropped. */
function singleFormatImps(imp: Imp): Imp[] {
  const { audio: _audio, banner, video, native, ...rest } = imp;
  const copies: Imp[] = [];
  if (banner) copies.push({ ...rest, banner });
  if (video) copies.push({ ...rest, video });
  if (native) copies.push({ ...rest, native });
  return copies;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

const BID_TYPES: ReadonlySet<string> = new Set<MediaType>(['banner', 'video', 'audio', 'native']);

/** The type Sharethrough states in `bid.ext.prebid.type`; records the error when there is none usable. */
function bidType(bid: JsonObject, errors: BidderError[]): MediaType | undefined {
  const prebid = isJsonObject(bid.ext) ? bid.ext.prebid : undefined;
  if (isJsonObject(prebid) && (prebid.type === undefined || prebid.type === null || typeof prebid.type === 'string')) {
    const type = typeof prebid.type === 'string' ? prebid.type : '';
    if (BID_TYPES.has(type)) return type as MediaType;
    errors.push(unknownError(`invalid BidType: ${type}`));
    return undefined;
  }
  errors.push(badServerResponse(`Failed to parse bid mediatype for impression "${String(bid.impid ?? '')}"`));
  return undefined;
}
