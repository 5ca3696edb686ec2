/**
 * The request-level `ext` PubMatic's translator reads (OpenWrap wrapper, allowed categories, marketplace), built as
 * Prebid Server's adapter builds it from `ext.prebid` (here `ext.<ns>`, the service's namespace).
 */
import { isJsonObject, requestOption, type App, type BidRequest, type JsonObject } from '../../core/api/index.js';
import { DecodeError, decodeObject } from './json.js';
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
 * Reads `ext.<ns>.bidderparams` (Prebid Server's core narrows it to this bidder's params; Gavel's core passes the
 * map keyed by bidder name, so the entry for this bidder is taken when there is one), the aliases and the alternate
 * bidder codes. An `ext` Go cannot decode is an error for the whole request.
 */
export function readRequestSettings(request: BidRequest, bidder: string): RequestSettings | { error: string } {
  if (request.ext === undefined) return {};
  const settings: RequestSettings = {};
  let aliases: JsonObject;
  let alternateCodes: JsonObject | undefined;
  try {
    decodeObject(request.ext, 'openrtb_ext.ExtRequest');
    aliases = decodeObject(requestOption(request, 'aliases'), 'openrtb_ext.ExtRequestPrebid.Aliases');
    for (const target of Object.values(aliases)) {
      if (typeof target !== 'string') throw new DecodeError(`cannot unmarshal openrtb_ext.ExtRequestPrebid.Aliases: expects " or n, but found ${JSON.stringify(target)[0]}`);
    }
    const codes = requestOption(request, 'alternatebiddercodes');
    alternateCodes = codes === undefined || codes === null ? undefined : decodeObject(codes, 'openrtb_ext.ExtAlternateBidderCodes');
  } catch (err) {
    if (err instanceof DecodeError) return { error: `error decoding Request.ext : ${err.message}` };
    throw err;
  }
  try {
    const all = decodeObject(requestOption(request, 'bidderparams'), 'map[string]json.RawMessage');
    const params = isJsonObject(all[bidder]) ? all[bidder] : all;
    const fromParams = params.wrapper === undefined ? undefined : readWrapper(params.wrapper);
    settings.wrapper = { profile: 0, version: 0, ...fromParams, biddercode: bidderCode(aliases, bidder) };
    if (params.acat !== undefined && params.acat !== null) settings.acat = readCategories(params.acat);
  } catch (err) {
    if (err instanceof DecodeError) return { error: err.message };
    throw err;
  }
  if (alternateCodes) settings.allowedBidders = allowedBidderCodes(alternateCodes);
  return settings;
}

/**
 * The code PubMatic is asked under: an alias the request declares for it, else `pubmatic`. Prebid Server's core
 * hands the adapter only the alias it runs under; Gavel's core hands it the request's whole map, so the entry for
 * this bidder comes first, then the first alias of PubMatic.
 */
function bidderCode(aliases: JsonObject, bidder: string): string {
  if (Object.hasOwn(aliases, bidder)) return bidder;
  const alias = Object.keys(aliases).find((name) => (aliases[name] as string).toLowerCase() === PUBMATIC);
  return alias ?? PUBMATIC;
}

function readCategories(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((item) => item === null || typeof item === 'string')) {
    throw new DecodeError(`cannot unmarshal acat: expects a list of strings, got ${JSON.stringify(value)}`);
  }
  return value.map((item: string | null) => (item ?? '').trim());
}

/**
 * `marketplace.allowedbidders` once the request states alternate bidder codes: PubMatic alone, unless they are on
 * for PubMatic, then PubMatic and its allowed codes, or `all` when it lists none or only `*`.
 */
function allowedBidderCodes(config: JsonObject): string[] {
  const allowed = [PUBMATIC];
  if (config.enabled !== true) return allowed;
  const own = isJsonObject(config.bidders) ? config.bidders[PUBMATIC] : undefined;
  if (!isJsonObject(own) || own.enabled !== true) return allowed;
  const codes = own.allowedbiddercodes;
  if (!Array.isArray(codes) || (codes.length === 1 && codes[0] === '*')) return ['all'];
  return [...allowed, ...codes.filter((code): code is string => typeof code === 'string')];
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
