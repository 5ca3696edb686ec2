import {
  badInput,
  badServerResponse,
  BidderErrorCode,
  checkResponseStatus,
  decodeBidderParams,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  goFoundByte,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unknownError,
  WarningCode,
  type Banner,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type Regs,
  type RequestData,
  type ResponseData,
  type TypedBid,
  type Warning,
} from '../../core/api/index.js';

/** Prebid Server reports a regs.ext it cannot read as a warning (errortypes.Warning) without a code of its own: 0. */
const WARNING_CODE = WarningCode.Uncoded;

interface YahooAdsParams {
  dcn: string;
  pos: string;
}

export function createYahooAdsBidder(config: BidderConfig): Bidder {
  const uri = config.endpoint;

  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const errors: BidderError[] = [];
      const warnings: Warning[] = [];
      const headers: Record<string, string> = {
        'Content-Type': 'application/json;charset=utf-8',
        Accept: 'application/json',
        'x-openrtb-version': '2.6',
      };
      if (typeof request.device?.ua === 'string' && request.device.ua !== '') headers['User-Agent'] = request.device.ua;

      // Regs depend only on the request, so they are promoted once for every per-imp copy.
      const regs = promoteRegsExt(request.regs);
      if (regs.warning) warnings.push({ code: WARNING_CODE, message: regs.warning });

      const requests: RequestData[] = [];
      request.imp.forEach((imp, index) => {
        const params = readParams(imp.ext);
        if ('error' in params) {
          errors.push(badInput(`imp #${index}: ${params.error}`));
          return;
        }
        // One call per imp.
        const built = buildRequest(request, imp, params.params, regs.regs);
        if ('error' in built) {
          errors.push(unknownError(built.error));
          return;
        }
        requests.push({ method: 'POST', uri, body: built.request, headers: { ...headers }, impIds: [imp.id] });
      });
      return warnings.length > 0 ? { requests, errors, warnings } : { requests, errors };
    },

    makeBids(request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      // Every status but 200 and 204, a 400 included, is the bidder's fault.
      const statusResult = checkResponseStatus(response, { text: (status) => `Unexpected status code: ${status}.`, badRequestCode: BidderErrorCode.BadServerResponse });
      if (statusResult) return statusResult;
      const decoded = decodeOpenrtb2BidResponse(response.body);
      // Prebid Server formats its decoder's error with %d, which Go prints as the error struct with a bad-verb note.
      if ('error' in decoded) return { bids: [], errors: [badServerResponse(`Bad server response: &{%!d(string=${decoded.error})}.`)] };

      const bids: TypedBid[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const imp = request.imp.find((candidate) => candidate.id === bid.impid);
          // A bid for an imp that was not asked for fails the whole response.
          if (!imp) return { bids: [], errors: [badServerResponse(`Unknown ad unit code '${bid.impid}'`)] };
          const type = impMediaType(imp);
          // Only banner and video bids are taken; others are skipped.
          if (type) bids.push({ bid, type });
        }
      }
      return { bids };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/**
 * The params as Prebid Server decodes them: `imp.ext` into `adapters.ExtImpBidder`; `imp.ext.bidder` is decoded into
 * `openrtb_ext.ExtImpYahooAds`, keys matched ignoring case and read in order (the first bad one stops), `null` the
 * zero value. The decoder's text when it fails.
 */
function readParams(ext: unknown): { params: YahooAdsParams } | { error: string } {
  // `imp.ext` into `adapters.ExtImpBidder` (its `prebid` and `ae` typed; `null` the zero value, without params).
  const impExt = decodeExtImpBidder(ext);
  if ('error' in impExt) return { error: 'ext.bidder not provided' };
  const decoded = decodeBidderParams(impExt.value.bidder, 'openrtb_ext.ExtImpYahooAds');
  if ('error' in decoded) return decoded;
  const bidder = decoded.params;
  const params: YahooAdsParams = { dcn: '', pos: '' };
  for (const key in bidder) {
    const name = key.toLowerCase();
    // Only the struct's own fields: a member named `constructor` or `toString` is one Go skips.
    const field = Object.hasOwn(PARAM_FIELDS, name) ? PARAM_FIELDS[name] : undefined;
    if (!field) continue;
    const value = bidder[key];
    if (value !== null && typeof value !== 'string') return { error: `cannot unmarshal openrtb_ext.ExtImpYahooAds.${field.goName}: expects " or n, but found ${goFoundByte(value)}` };
    params[field.name] = typeof value === 'string' ? value : '';
  }
  return { params };
}

/** The params' fields by their JSON name in lower case, with the Go field name the decoder's errors give. */
const PARAM_FIELDS: Record<string, { name: keyof YahooAdsParams; goName: string } | undefined> = {
  dcn: { name: 'dcn', goName: 'Dcn' },
  pos: { name: 'pos', goName: 'Pos' },
};

/** The request for one imp: `tagid` is `pos`, the site id (else the app id) is `dcn`, the banner gets a size. */
function buildRequest(request: BidRequest, imp: Imp, params: YahooAdsParams, regs: Regs | undefined): { request: BidRequest } | { error: string } {
  const outgoing: Imp = withString({ ...imp }, 'tagid', params.pos);
  if (imp.banner) {
    const banner = sizedBanner(imp.banner);
    if (typeof banner === 'string') return { error: banner };
    outgoing.banner = banner;
  }
  const body: BidRequest = { ...request, imp: [outgoing] };
  if (regs === undefined) delete body.regs;
  else body.regs = regs;
  if (request.site) body.site = withString({ ...request.site }, 'id', params.dcn);
  else if (request.app) body.app = withString({ ...request.app }, 'id', params.dcn);
  // The whole request goes re-encoded as Prebid Server's struct writes it: site, app and regs included (their unknown
  // members and zero `omitempty` fields left out).
  return { request: encodeAsOpenrtb2Request(body) };
}

/** A banner with `w` and `h`: its own when both are set (and not zero), else the first format's; an error text otherwise. */
function sizedBanner(banner: Banner): Banner | string {
  if (isSet(banner.w) && isSet(banner.h)) {
    if (banner.w === 0 || banner.h === 0) return `Invalid sizes provided for Banner ${banner.w}x${banner.h}`;
    return banner;
  }
  const first = Array.isArray(banner.format) ? banner.format[0] : undefined;
  if (!first) return 'No sizes provided for Banner []';
  return { ...banner, w: typeof first.w === 'number' ? first.w : 0, h: typeof first.h === 'number' ? first.h : 0 };
}

/**
 * OpenRTB 2.6 regs: `regs.ext.gpp` and `regs.ext.gpp_sid` move to `regs.gpp` / `regs.gpp_sid` when those are empty,
 * and are dropped from `ext` when those are already set. A `regs.ext` that is not an object is left as it is, with
 * a warning.
 */
function promoteRegsExt(regs: Regs | undefined): { regs: Regs | undefined; warning?: string } {
  if (!regs || regs.ext === undefined) return { regs };
  if (regs.ext !== null && !isJsonObject(regs.ext)) {
    return { regs, warning: 'regs.ext is not a JSON object; skipped OpenRTB 2.6 regs promotion' };
  }
  const ext: Record<string, unknown> = { ...(regs.ext ?? {}) };
  const promoted: Regs = { ...regs };
  let modified = false;

  for (const { key, isSet, readable } of PROMOTED_REGS) {
    if (!(key in ext)) continue;
    if (isSet(regs[key])) {
      delete ext[key];
      modified = true;
      continue;
    }
    const value = ext[key];
    // A value Prebid Server cannot decode stays where it is; null decodes to "empty".
    if (value !== null && !readable(value)) continue;
    if (isSet(value)) promoted[key] = key === 'gpp_sid' ? (value as Array<number | null>).map((id) => id ?? 0) : value;
    else delete promoted[key];
    delete ext[key];
    modified = true;
  }

  if (!modified) return { regs };
  if (Object.keys(ext).length === 0) delete promoted.ext;
  else promoted.ext = ext;
  return { regs: promoted };
}

/** The regs fields OpenRTB 2.6 took out of `regs.ext`: when each counts as set, and what Prebid Server can read. */
const PROMOTED_REGS: Array<{ key: 'gpp' | 'gpp_sid'; isSet: (value: unknown) => boolean; readable: (value: unknown) => boolean }> = [
  { key: 'gpp', isSet: (value) => typeof value === 'string' && value !== '', readable: (value) => typeof value === 'string' },
  { key: 'gpp_sid', isSet: (value) => Array.isArray(value) && value.length > 0, readable: (value) => isSectionIds(value) },
];

/** GPP section ids as Prebid Server reads them: a list of 8-bit signed integers, a `null` one read as 0. */
function isSectionIds(value: unknown): value is Array<number | null> {
  return Array.isArray(value) && value.every((id) => id === null || (Number.isInteger(id) && id >= -128 && id <= 127));
}

function isSet(value: unknown): value is number {
  return value !== undefined && value !== null;
}

/** Sets a string field, or removes it when empty (Prebid Server's OpenRTB structs omit empty strings). */
function withString<T extends Record<string, unknown>>(object: T, key: string, value: string): T {
  const copy: Record<string, unknown> = { ...object };
  if (value === '') delete copy[key];
  else copy[key] = value;
  return copy as T;
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

function impMediaType(imp: Imp): MediaType | undefined {
  if (imp.banner) return 'banner';
  if (imp.video) return 'video';
  return undefined;
}
