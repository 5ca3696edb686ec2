/** The request-level `ext` PubMatic's translator reads: OpenWrap wrapper, allowed categories, marketplace. */
import { badInput, isJsonObject, requestOption, type App, type BidderError, type BidRequest, type JsonObject } from '../../core/api/index.js';
import type { DisplayManager, Wrapper } from './imp.js';

export interface RequestSettings {
  wrapper?: Wrapper;
  /** Allowed IAB categories for this auction. */
  acat?: string[];
  /** Bidder codes PubMatic may answer under (alternate bidder codes). */
  allowedBidders?: string[];
}

/**
 * Request-level PubMatic params come from `ext.<ns>.bidderparams` (already narrowed to this bidder by the host, or
 * keyed by the bidder's name).
 */
export function readRequestSettings(request: BidRequest, bidder: string): RequestSettings | { error: BidderError } {
  const all = requestOption(request, 'bidderparams');
  const params = isJsonObject(all) && isJsonObject(all[bidder]) ? all[bidder] : isJsonObject(all) ? all : {};
  const settings: RequestSettings = {};

  if (params.wrapper !== undefined) {
    const wrapper = params.wrapper;
    if (!isJsonObject(wrapper) || !isOptionalInteger(wrapper.profile) || !isOptionalInteger(wrapper.version)) {
      return { error: badInput('ext.bidderparams.wrapper must be an object with numeric profile and version') };
    }
    settings.wrapper = { profile: wrapper.profile as number | undefined, version: wrapper.version as number | undefined };
  }
  if (params.acat !== undefined) {
    if (!Array.isArray(params.acat) || !params.acat.every((item) => typeof item === 'string')) {
      return { error: badInput('ext.bidderparams.acat must be a list of strings') };
    }
    settings.acat = params.acat.map((category: string) => category.trim());
  }
  settings.allowedBidders = allowedBidderCodes(requestOption(request, 'alternatebiddercodes'), bidder);
  return settings;
}

/** True once the wrapper names both an OpenWrap profile and its version. */
export function isCompleteWrapper(wrapper: Wrapper | undefined): boolean {
  return !!wrapper?.profile && !!wrapper.version;
}

/** Fills the wrapper's missing profile/version from an imp's wrapper param. */
export function mergeWrapper(current: Wrapper | undefined, fromImp: Wrapper | undefined): Wrapper | undefined {
  if (!fromImp || isCompleteWrapper(current)) return current;
  return { profile: current?.profile || fromImp.profile, version: current?.version || fromImp.version };
}

export function buildRequestExt(settings: RequestSettings, wrapper: Wrapper | undefined, bidder: string): JsonObject {
  const ext: JsonObject = {};
  if (wrapper) {
    const wire: JsonObject = { biddercode: bidder };
    if (wrapper.profile) wire.profile = wrapper.profile;
    if (wrapper.version) wire.version = wrapper.version;
    ext.wrapper = wire;
  }
  if (settings.acat && settings.acat.length > 0) ext.acat = settings.acat;
  if (settings.allowedBidders) ext.marketplace = { allowedbidders: settings.allowedBidders };
  return ext;
}

/** The SDK that built an app request, from `app.ext.<ns>` or `app.ext` (`source` and `version`). */
export function appDisplayManager(app: App | undefined): DisplayManager | undefined {
  if (!app || !isJsonObject(app.ext)) return undefined;
  for (const holder of [app.ext.prebid, app.ext.svc, app.ext]) {
    if (!isJsonObject(holder)) continue;
    const { source, version } = holder;
    if (typeof source === 'string' && source !== '' && typeof version === 'string' && version !== '') return { name: source, version };
  }
  return undefined;
}

function allowedBidderCodes(config: unknown, bidder: string): string[] | undefined {
  if (!isJsonObject(config)) return undefined;
  const allowed = [bidder];
  if (config.enabled !== true) return allowed;
  const own = isJsonObject(config.bidders) ? config.bidders[bidder] : undefined;
  if (!isJsonObject(own) || own.enabled !== true) return allowed;
  const codes = own.allowedbiddercodes;
  if (!Array.isArray(codes) || codes.includes('*')) return ['all'];
  return [...allowed, ...codes.filter((code): code is string => typeof code === 'string')];
}

function isOptionalInteger(value: unknown): boolean {
  return value === undefined || (typeof value === 'number' && Number.isInteger(value));
}
