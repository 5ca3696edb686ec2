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
  checkResponseStatus,
  decodeExtBid,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  GoDecodeError,
  goSlice,
  goString,
  isJsonObject,
  encodeAsOpenrtb2Request,
  readBidderParams,
  unexpectedStatusText,
  unknownError,
  withFloorInCurrency,
  type Bid,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type Imp,
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
const PARAMS_TYPE = 'openrtb_ext.ExtImpSharethrough';
/** The type Prebid Server gives a bid whose type it cannot read: none, passed on as it is. */
const UNTYPED = '' as MediaType;
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
          // Prebid Server returns the decoder's error as is: FailedToUnmarshal.
          errors.push(failedToUnmarshal(read.error));
          continue;
        }
        const converted = withFloorInCurrency(imp, 'USD', info);
        // A floor that cannot be converted stops the whole request, calls already built included.
        if ('error' in converted) return { requests: [], errors: [unknownError(converted.error)] };
        // An empty pkey leaves tagid out when the request is encoded (omitempty).
        const prepared: Imp = { ...converted.imp, tagid: read.params.pkey };
        bcat = [...bcat, ...read.params.bcat];
        badv = [...badv, ...read.params.badv];

        const single = singleFormatImps(prepared);
        if (single.length === 0) {
          errors.push(badInput('Invalid MediaType. Sharethrough only supports Banner, Video and Native.'));
          continue;
        }
        for (const one of single) {
          const body = encodeAsOpenrtb2Request({ ...request, source, bcat, badv, imp: [one] });
          requests.push({ method: 'POST', uri: config.endpoint, body, headers: { ...HEADERS }, impIds: [one.id] });
        }
      }
      return { requests, errors };
    },

    makeBids(_request: BidRequest, _sent, response: ResponseData): MakeBidsResult {
      // Sharethrough's Go adapter reports statuses other than 400 itself, as generic errors.
      const statusResult = checkResponseStatus(response, {
        text: (status) => `unexpected status code: ${status}. Run with request.debug = 1 for more info`,
        badRequestText: unexpectedStatusText(400),
        code: BidderErrorCode.Unknown,
      });
      if (statusResult) return statusResult;
      // The decoder's error is returned as it is: a bid that is not an object fails the whole answer.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        // Prebid Server keeps a bid it cannot type, with an empty type, beside the error.
        for (const bid of seatbid.bid) bids.push({ bid, type: bidType(bid, errors) ?? UNTYPED });
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

/**
 * The params as Go decodes them into `openrtb_ext.ExtImpSharethrough`, with the SDK's Go readers: names matched
 * ignoring case, `null` the zero value, the first member of the wrong type (in the order written) failing them with
 * the decoder's text (an entry of `badv`/`bcat` that is not a string is named by its slice type, `[]string`).
 */
function readParams(imp: Imp): { params: SharethroughParams } | { error: string } {
  const read = readBidderParams(imp, PARAMS_TYPE);
  if ('error' in read) return read;
  const params: SharethroughParams = { pkey: '', badv: [], bcat: [] };
  try {
    for (const [key, value] of Object.entries(read.params)) {
      const name = key.toLowerCase();
      // `null` is the zero value: an empty pkey, no list (what an earlier key of the same name set is gone).
      if (name === 'pkey') params.pkey = goString(value, [`${PARAMS_TYPE}.Pkey`]);
      if (name !== 'badv' && name !== 'bcat') continue;
      const links = [`${PARAMS_TYPE}.${name === 'badv' ? 'BAdv' : 'BCat'}`];
      // A `null` entry is Go's empty string, and stays in the list.
      params[name] = goSlice(value, links, '[]string').map((entry) => goString(entry, [...links, '[]string']));
    }
  } catch (err) {
    if (err instanceof GoDecodeError) return { error: err.message };
    throw err;
  }
  return { params };
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

/**
 * The type Sharethrough states in `bid.ext.prebid.type`, read only from an ext Go decodes whole into
 * `openrtb_ext.ExtBid` (the SDK's `decodeExtBid`: a `meta` or `video` of the wrong shape fails it) with a non-nil
 * `prebid`; records the error when there is none usable.
 */
function bidType(bid: Bid, errors: BidderError[]): MediaType | undefined {
  const decoded = bid.ext === undefined ? undefined : decodeExtBid(bid.ext);
  const prebid = decoded && 'value' in decoded ? decoded.value.prebid : undefined;
  if (prebid) {
    const named = typeof prebid.type === 'string' ? prebid.type : '';
    if (BID_TYPES.has(named)) return named as MediaType;
    errors.push(unknownError(`invalid BidType: ${named}`));
    return undefined;
  }
  errors.push(badServerResponse(`Failed to parse bid mediatype for impression "${bid.impid}"`));
  return undefined;
}
