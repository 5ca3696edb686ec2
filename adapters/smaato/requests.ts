/**
 * Smaato's requests. Common to all: user data promoted from `user.ext.data`, site keywords from
 * `site.ext.data.keywords`, and `ext` replaced by Smaato's client version. Auction and AMP traffic goes one call per
 * imp and media type, with the imp's ad space as `tagid`; video-endpoint traffic (ad pods) goes one call per pod,
 * with the pod's ad break as `tagid` and the imps numbered in sequence.
 */
import {
  badInput,
  fieldIgnoringCase,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unknownError,
  type BidRequest,
  type BidderError,
  type Imp,
  type JsonObject,
  type MakeRequestsResult,
  type RequestData,
  type User,
} from '../../core/api/index.js';

const CLIENT_VERSION = 'prebid_server_1.2';
const HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };
const INVENTORY = ['site', 'app', 'dooh'] as const;

type Result<T> = { value: T } | { error: BidderError };

export function smaatoRequests(request: BidRequest, endpoint: string, adPods: boolean): MakeRequestsResult {
  if (!Array.isArray(request.imp) || request.imp.length === 0) return { requests: [], errors: [badInput('No impressions in bid request.')] };
  const common = commonRequest(request);
  if ('error' in common) return { requests: [], errors: [common.error] };
  return adPods ? podRequests(common.value, endpoint) : individualRequests(common.value, endpoint);
}

// ---------------------------------------------------------------------------------------------------------------
// What every call shares
// ---------------------------------------------------------------------------------------------------------------

function commonRequest(request: BidRequest): Result<BidRequest> {
  const common: BidRequest = { ...request, ext: { client: CLIENT_VERSION } };
  if (request.user) {
    const user = withUserData(request.user);
    if ('error' in user) return user;
    common.user = user.value;
  }
  if (request.site) {
    const site = withSiteKeywords(request.site);
    if ('error' in site) return site;
    common.site = site.value;
  }
  return { value: common };
}

/** `user.ext.data.{gender, yob, keywords}` become the user's own fields, and `data` leaves `user.ext`. */
function withUserData(user: User): Result<User> {
  if (user.ext === undefined || user.ext === null) return { value: user };
  if (!isJsonObject(user.ext)) return { error: badInput('Invalid user.ext.') };
  if (!('data' in user.ext)) return { value: user };

  const { data, ...ext } = user.ext;
  if (!isObjectOrNull(data)) return { error: badInput('Invalid user.ext.data.') };
  // Go decodes the data into a struct: names match ignoring case.
  const keywords = data && fieldIgnoringCase(data, 'keywords');
  const gender = data && fieldIgnoringCase(data, 'gender');
  const yob = data && fieldIgnoringCase(data, 'yob');
  if (!isOptional(keywords, 'string') || !isOptional(gender, 'string') || !(isOptional(yob, 'number') && (yob == null || Number.isInteger(yob)))) {
    return { error: badInput('Invalid user.ext.data.') };
  }
  const promoted: User = { ...user, ext };
  if (gender) promoted.gender = gender;
  if (yob) promoted.yob = yob;
  if (keywords) promoted.keywords = keywords;
  return { value: promoted };
}

/** The site's keywords are `site.ext.data.keywords`, and `site.ext` is not sent. */
function withSiteKeywords(site: NonNullable<BidRequest['site']>): Result<NonNullable<BidRequest['site']>> {
  if (site.ext === undefined) return { value: site };
  const ext: unknown = site.ext;
  // Go decodes the ext into a struct: names match ignoring case.
  const data = isJsonObject(ext) ? (fieldIgnoringCase(ext, 'data') ?? null) : null;
  const keywords = isJsonObject(data) ? (fieldIgnoringCase(data, 'keywords') ?? '') : '';
  if (!isObjectOrNull(ext) || !isObjectOrNull(data) || typeof keywords !== 'string') return { error: badInput('Invalid site.ext.') };

  const { ext: _dropped, keywords: _replaced, ...rest } = site;
  return { value: keywords === '' ? rest : { ...rest, keywords } };
}

// ---------------------------------------------------------------------------------------------------------------
// One call per imp and media type
// ---------------------------------------------------------------------------------------------------------------

function individualRequests(common: BidRequest, endpoint: string): MakeRequestsResult {
  const requests: RequestData[] = [];
  const errors: BidderError[] = [];
  for (const imp of common.imp) {
    const parts = splitByMediaType(imp);
    if ('error' in parts) {
      errors.push(parts.error);
      continue;
    }
    for (const part of parts.value) {
      const built = individualRequest(common, part, endpoint);
      if ('error' in built) errors.push(built.error);
      else requests.push(built.value);
    }
  }
  return { requests, errors };
}

/** A multi-format imp becomes one imp per media type: its banner, its video, its native. */
function splitByMediaType(imp: Imp): Result<Imp[]> {
  if (!imp.banner && !imp.video && !imp.native) return { error: badInput('Invalid MediaType. Smaato only supports Banner, Video and Native.') };
  const { banner, video, native, ...rest } = imp;
  const parts: Imp[] = [];
  if (banner) parts.push({ ...rest, banner });
  if (video) parts.push({ ...rest, video });
  if (native) parts.push({ ...rest, native });
  return { value: parts };
}

function individualRequest(common: BidRequest, imp: Imp, endpoint: string): Result<RequestData> {
  const inventory = withPublisher(common, imp);
  if ('error' in inventory) return inventory;
  const adSpaceId = bidderString(imp, 'adspaceId');
  if (adSpaceId === undefined) return { error: badInput('Missing adspaceId parameter.') };
  const ext = extWithoutParams(imp.ext);
  if ('error' in ext) return ext;

  const sent = withTagId({ ...imp }, adSpaceId);
  if (ext.value) sent.ext = ext.value;
  else delete sent.ext;
  return { value: call({ ...common, ...inventory.value, imp: [sent] }, endpoint) };
}

// ---------------------------------------------------------------------------------------------------------------
// One call per ad pod (the video endpoint)
// ---------------------------------------------------------------------------------------------------------------

function podRequests(common: BidRequest, endpoint: string): MakeRequestsResult {
  const errors: BidderError[] = [];
  const pods = new Map<string, Imp[]>();
  for (const imp of common.imp) {
    if (!imp.video) {
      errors.push(badInput('Invalid MediaType. Smaato only supports Video for AdPod.'));
      continue;
    }
    // Imps "3_1", "3_2" ... are one pod, "3".
    const pod = String(imp.id).split('_')[0]!;
    pods.set(pod, [...(pods.get(pod) ?? []), imp]);
  }
  const requests: RequestData[] = [];
  for (const imps of pods.values()) {
    const built = podRequest(common, imps, endpoint);
    if ('error' in built) errors.push(built.error);
    else requests.push(built.value);
  }
  return { requests, errors };
}

/** The first imp of the pod names publisher and ad break; only it keeps its ext (without the params). */
function podRequest(common: BidRequest, imps: Imp[], endpoint: string): Result<RequestData> {
  const first = imps[0]!;
  const inventory = withPublisher(common, first);
  if ('error' in inventory) return inventory;
  const adBreakId = bidderString(first, 'adbreakId');
  if (adBreakId === undefined) return { error: badInput('Missing adbreakId parameter.') };
  const firstExt = extWithoutParams(first.ext);
  if ('error' in firstExt) return firstExt;

  const sent = imps.map((imp, index) => {
    const { ext: _dropped, ...rest } = imp;
    const podImp = withTagId({ ...rest, video: { ...imp.video, sequence: index + 1, ext: { context: 'adpod' } } }, adBreakId);
    if (index === 0 && firstExt.value) podImp.ext = firstExt.value;
    return podImp;
  });
  return { value: call({ ...common, ...inventory.value, imp: sent }, endpoint) };
}

// ---------------------------------------------------------------------------------------------------------------
// Shared steps
// ---------------------------------------------------------------------------------------------------------------

/** The site, app or DOOH object (the first present, in that order) with the imp's publisher id as its publisher. */
function withPublisher(common: BidRequest, imp: Imp): Result<Partial<BidRequest>> {
  const publisherId = bidderString(imp, 'publisherId');
  if (publisherId === undefined) return { error: badInput('Missing publisherId parameter.') };
  const kind = INVENTORY.find((key) => isJsonObject(common[key]));
  if (!kind) return { error: badInput('Missing Site/App/DOOH.') };
  return { value: { [kind]: { ...(common[kind] as JsonObject), publisher: publisherId === '' ? {} : { id: publisherId } } } };
}

function bidderString(imp: Imp, key: string): string | undefined {
  const params = isJsonObject(imp.ext) ? imp.ext.bidder : undefined;
  const value = isJsonObject(params) ? params[key] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** The imp's ext without the params; undefined when nothing else is in it. */
function extWithoutParams(ext: unknown): Result<JsonObject | undefined> {
  if (ext === undefined) return { value: undefined };
  if (!isJsonObject(ext)) return { error: unknownError('imp.ext is not an object') };
  const { bidder: _params, ...rest } = ext;
  return { value: Object.keys(rest).length > 0 ? rest : undefined };
}

/** An empty id is no tagid at all. */
function withTagId(imp: Imp, tagId: string): Imp {
  if (tagId !== '') return { ...imp, tagid: tagId };
  const { tagid: _dropped, ...rest } = imp;
  return rest as Imp;
}

/** A call with the request as Prebid Server's Go structs encode it. */
function call(request: BidRequest, endpoint: string): RequestData {
  const body = encodeAsOpenrtb2Request(request);
  return { method: 'POST', uri: endpoint, body, headers: { ...HEADERS }, impIds: body.imp.map((imp) => imp.id) };
}

function isObjectOrNull(value: unknown): value is JsonObject | null {
  return value === null || isJsonObject(value);
}

function isOptional(value: unknown, type: 'string' | 'number'): boolean {
  return value === undefined || value === null || typeof value === type;
}
