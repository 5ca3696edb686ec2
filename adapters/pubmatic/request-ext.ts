/**
 * The request-level `ext` PubMatic's translator reads (OpenWrap wrapper, allowed categories, marketplace), built as
 * Prebid Server's adapter builds it from `ext.prebid` (here `ext.<ns>`, the service's namespace).
 */
import {
  failedToUnmarshal,
  fieldIgnoringCase,
  goBool,
  GoDecodeError,
  goMap,
  goSlice,
  goString,
  goStruct,
  isJsonObject,
  requestOption,
  unknownError,
  type App,
  type BidderError,
  type BidRequest,
  type JsonObject,
} from '../../core/api/index.js';
import { readWrapper, type DisplayManager, type Wrapper } from './imp.js';

/** PubMatic's own code, sent as the wrapper's bidder code unless the request runs it under an alias. */
const PUBMATIC = 'pubmatic';

export interface RequestSettings {
  /** Undefined when the request has no `ext`: then only imps can give a wrapper, without a bidder code. */
  wrapper?: Wrapper & { biddercode?: string };
  /** Allowed IAB categories for this auction. */
  acat?: string[];
  /** Bidder codes PubMatic may answer under (alternate bidder codes). */
  allowedBidders?: string[];
}

/**
 * Reads `ext.<ns>.bidderparams` (narrowed by the core to this bidder's own params, as Prebid Server's core narrows
 * them), the aliases and the alternate bidder codes. An `ext` Go cannot decode is an error for the whole request.
 */
export function readRequestSettings(request: BidRequest): RequestSettings | { error: BidderError } {
  if (request.ext === undefined) return {};
  const settings: RequestSettings = {};
  let aliases: JsonObject;
  let alternateCodes: JsonObject | undefined;
  const prebid = ['openrtb_ext.ExtRequest.Prebid'];
  try {
    goStruct(request.ext, []);
    const aliasLinks = [...prebid, 'openrtb_ext.ExtRequestPrebid.Aliases'];
    aliases = goMap(requestOption(request, 'aliases'), aliasLinks);
    for (const target of Object.values(aliases)) goString(target, aliasLinks);
    alternateCodes = readAlternateBidderCodes(requestOption(request, 'alternatebiddercodes'), [...prebid, 'openrtb_ext.ExtRequestPrebid.AlternateBidderCodes']);
  } catch (err) {
    // Go wraps this decoder error in fmt.Errorf: a generic error.
    if (err instanceof GoDecodeError) return { error: unknownError(`error decoding Request.ext : ${err.message}`) };
    throw err;
  }
  try {
    // `bidderparams` (raw JSON), then its `wrapper` and `acat`, are each decoded on their own.
    const bidderParams = requestOption(request, 'bidderparams');
    const params = bidderParams === undefined ? {} : goMap(bidderParams, []);
    const fromParams = params.wrapper === undefined ? undefined : readWrapper(params.wrapper);
    settings.wrapper = { profile: 0, version: 0, ...fromParams, biddercode: bidderCode(aliases) };
    if (params.acat !== undefined) settings.acat = readCategories(params.acat);
  } catch (err) {
    // Go returns these decoder errors as they are (FailedToUnmarshal).
    if (err instanceof GoDecodeError) return { error: failedToUnmarshal(err.message) };
    throw err;
  }
  if (alternateCodes) settings.allowedBidders = allowedBidderCodes(alternateCodes);
  return settings;
}

/**
 * The code PubMatic is asked under: the first alias the request declares, whatever it aliases (Prebid Server's core
 * hands the adapter only the alias it runs under, and so does Gavel's), else `pubmatic`.
 */
function bidderCode(aliases: JsonObject): string {
  for (const alias in aliases) if (Object.hasOwn(aliases, alias)) return alias;
  return PUBMATIC;
}

/**
 * `alternatebiddercodes` as Go decodes it into `openrtb_ext.ExtAlternateBidderCodes`: a flag, and per bidder a flag
 * and a list of codes (members matched ignoring case). A member of the wrong JSON type fails the request ext.
 */
function readAlternateBidderCodes(value: unknown, links: readonly string[]): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  const codes = goStruct(value, links);
  goBool(fieldIgnoringCase(codes, 'enabled'), [...links, 'openrtb_ext.ExtAlternateBidderCodes.Enabled']);
  const biddersLinks = [...links, 'openrtb_ext.ExtAlternateBidderCodes.Bidders'];
  for (const entry of Object.values(goMap(fieldIgnoringCase(codes, 'bidders'), biddersLinks))) {
    const adapter = goStruct(entry, biddersLinks);
    goBool(fieldIgnoringCase(adapter, 'enabled'), [...biddersLinks, 'openrtb_ext.ExtAdapterAlternateBidderCodes.Enabled']);
    const allowedLinks = [...biddersLinks, 'openrtb_ext.ExtAdapterAlternateBidderCodes.AllowedBidderCodes'];
    goSlice(fieldIgnoringCase(adapter, 'allowedbiddercodes'), allowedLinks, '[]string').forEach((code) => goString(code, [...allowedLinks, '[]string']));
  }
  return codes;
}

/** `acat` as Go decodes it on its own into `[]string`: `null` is no list, any other non-list fails. */
function readCategories(value: unknown): string[] | undefined {
  if (value === null) return undefined;
  return goSlice(value, [], '[]string').map((item) => goString(item, ['[]string']).trim());
}

/**
 * `marketplace.allowedbidders` once the request states alternate bidder codes: PubMatic alone, unless they are on
 * for PubMatic, then PubMatic and its allowed codes, or `all` when it lists none or only `*`.
 */
function allowedBidderCodes(config: JsonObject): string[] {
  const allowed = [PUBMATIC];
  if (fieldIgnoringCase(config, 'enabled') !== true) return allowed;
  const bidders = fieldIgnoringCase(config, 'bidders');
  const own = isJsonObject(bidders) ? bidders[PUBMATIC] : undefined;
  if (!isJsonObject(own) || fieldIgnoringCase(own, 'enabled') !== true) return allowed;
  const codes = fieldIgnoringCase(own, 'allowedbiddercodes');
  if (!Array.isArray(codes) || (codes.length === 1 && codes[0] === '*')) return ['all'];
  // A `null` entry decodes to the empty string.
  return [...allowed, ...codes.map((code: string | null) => code ?? '')];
}

/** The wire form of the request `ext`: Go leaves out a missing wrapper, empty fields, an empty category list. */
export function buildRequestExt(settings: RequestSettings, wrapper: RequestSettings['wrapper']): JsonObject {
  const ext: JsonObject = {};
  if (wrapper) {
    const wire: JsonObject = {};
    if (wrapper.profile) wire.profile = wrapper.profile;
    if (wrapper.version) wire.version = wrapper.version;
    if (wrapper.biddercode) wire.biddercode = wrapper.biddercode;
    ext.wrapper = wire;
  }
  if (settings.acat && settings.acat.length > 0) ext.acat = settings.acat;
  if (settings.allowedBidders) ext.marketplace = { allowedbidders: settings.allowedBidders };
  return ext;
}

/** True once the wrapper names both an OpenWrap profile and its version. */
export function isCompleteWrapper(wrapper: Wrapper | undefined): boolean {
  return !!wrapper?.profile && !!wrapper.version;
}

/** Fills the wrapper's missing profile/version from an imp's wrapper param (creating one without a bidder code). */
export function mergeWrapper(current: RequestSettings['wrapper'], fromImp: Wrapper | undefined): RequestSettings['wrapper'] {
  if (!fromImp) return current;
  return { ...current, profile: current?.profile || fromImp.profile, version: current?.version || fromImp.version };
}

/** The SDK that built an app request: `source` and `version` from `app.ext.<ns>`, else from `app.ext`. */
export function appDisplayManager(app: App | undefined): DisplayManager | undefined {
  if (!app || !isJsonObject(app.ext)) return undefined;
  for (const holder of [app.ext.prebid, app.ext.svc, app.ext]) {
    if (!isJsonObject(holder)) continue;
    const { source, version } = holder;
    if (typeof source === 'string' && source !== '' && typeof version === 'string' && version !== '') return { name: source, version };
  }
  return undefined;
}
