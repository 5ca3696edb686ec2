/** Checks of the request's top-level objects other than imps: site/app/dooh, device, regs, user. */
import { namespacesInOrder, type InterstitialSettings, type Namespace, type ValidationScope } from './scope.js';
import { GoDecodeError, goMap, goString, isJsonObject } from '../../../core/api/index.js';
import { DECODER_WORDS_ALONE, fieldKindError, isNonEmptyString, isPresent, kindError, nonNegativeIntegerFieldsError, type JsonKind, type JsonObject } from './values.js';

const CHANNELS = ['site', 'app', 'dooh'] as const;
const SITE_IDENTITY_MISSING = 'request.site should include at least one of request.site.id or request.site.page.';

type ExtFields = ReadonlyArray<readonly [field: string, kind: JsonKind]>;

// The members Prebid Server decodes into typed fields (openrtb_ext's RegExt, UserExt, SourceExt), in its order.
const REGS_EXT_FIELDS: ExtFields = [['dsa', 'object'], ['us_privacy', 'string'], ['gpc', 'string']];
const USER_EXT_FIELDS: ExtFields = [['consent', 'string'], ['eids', 'array']];
const SOURCE_EXT_FIELDS: ExtFields = [['schain', 'object']];
const NO_EXT_FIELDS: ExtFields = [];
const DEVICE_SIZE_FIELDS = ['w', 'h', 'ppi'];

/** Where `request.<object>.ext` and its service namespaces sit, and how a Go decoder names it (see kindError). */
interface ExtPaths {
  readonly ext: string;
  readonly decoderContext: string;
  readonly namespaces: Readonly<Record<Namespace, string>>;
  /** Whether Prebid Server decodes the service namespace here (user.ext.prebid), so a bad one reads as its error. */
  readonly decodesNamespace?: boolean;
  /** Whether nothing reads a service namespace here (site, source and regs: Prebid Server passes any value on). */
  readonly ignoresNamespace?: boolean;
}

/**
 * `decoderContext` is how Prebid Server introduces its decoder's words for this ext: its OpenRTB 2.6 conversion
 * decodes regs, user and source ext first (`req.user.ext is invalid: ...`); site, app and device ext are decoded
 * later, where it reports the decoder's words alone.
 */
function extPathsOf(object: string, decoderContext = `req.${object}.ext is invalid`): ExtPaths {
  const ext = `request.${object}.ext`;
  return { ext, decoderContext, namespaces: { svc: `${ext}.svc`, prebid: `${ext}.prebid` } };
}

/** Spelled once, at load: every request has some of these objects. */
const EXT_PATHS = {
  site: { ...extPathsOf('site', DECODER_WORDS_ALONE), ignoresNamespace: true },
  app: { ...extPathsOf('app', DECODER_WORDS_ALONE), decodesNamespace: true },
  device: { ...extPathsOf('device', DECODER_WORDS_ALONE), decodesNamespace: true },
  regs: { ...extPathsOf('regs'), ignoresNamespace: true },
  user: { ...extPathsOf('user'), decodesNamespace: true },
  source: { ...extPathsOf('source'), ignoresNamespace: true },
};

/**
 * `request.<object>.ext` must be an object, its `fields` of the given kinds, and each service namespace in it an
 * object. Returns the ext object when it is one; the caller checks the content of the namespaces that are objects.
 */
function checkExt(object: JsonObject, paths: ExtPaths, scope: ValidationScope, fields = NO_EXT_FIELDS): JsonObject | undefined {
  const ext = object.ext;
  if (!isJsonObject(ext)) {
    scope.report.addError(kindError(ext, 'object', paths.ext, paths.decoderContext));
    return undefined;
  }
  for (const [field, kind] of fields) {
    scope.report.addError(fieldKindError(ext, field, kind, paths.ext, paths.decoderContext));
  }
  if (paths.ignoresNamespace) return ext;
  for (const namespace of namespacesInOrder(scope.namespace)) {
    const options = ext[namespace];
    if (isPresent(options) && !isJsonObject(options)) {
      scope.report.addError(kindError(options, 'object', paths.namespaces[namespace], paths.decodesNamespace ? paths.decoderContext : undefined));
    }
  }
  return ext;
}

/** Exactly one of site, app or dooh; each identifies itself. */
export function checkDistributionChannel(request: JsonObject, scope: ValidationScope): void {
  let channelCount = 0;
  for (const channel of CHANNELS) if (isPresent(request[channel])) channelCount++;
  if (channelCount > 1) {
    scope.report.addError('No more than one of request.site or request.app or request.dooh can be defined');
  }
  // No channel at all reads as an empty site: the most common channel, and the line Prebid Server clients know.
  if (channelCount === 0) scope.report.addError(SITE_IDENTITY_MISSING);
  for (const channel of CHANNELS) {
    const object = request[channel];
    if (!isPresent(object)) continue;
    if (!isJsonObject(object)) {
      scope.report.addError(`request.${channel} must be an object`);
      continue;
    }
    if (channel === 'site') checkSite(object, scope);
    if (channel === 'app') checkApp(object, scope);
    if (channel === 'dooh') checkDooh(object, scope);
  }
}

function checkSite(site: JsonObject, scope: ValidationScope): void {
  if (!isNonEmptyString(site.id) && !isNonEmptyString(site.page)) scope.report.addError(SITE_IDENTITY_MISSING);
  const ext = checkExt(site, EXT_PATHS.site, scope);
  // `site.ext.amp` says whether the page is an AMP page: 1 or 0.
  if (ext !== undefined && isPresent(ext.amp) && ext.amp !== 0 && ext.amp !== 1) scope.report.addError('request.site.ext.amp must be either 1, 0, or undefined');
}

/** `<object>.geo.accuracy` is a radius in metres: never negative. */
function geoAccuracyError(object: JsonObject, path: string): string | undefined {
  const geo = object.geo;
  if (!isJsonObject(geo) || !isPresent(geo.accuracy)) return undefined;
  if (typeof geo.accuracy !== 'number' || !Number.isInteger(geo.accuracy)) return `${path}.geo.accuracy must be an integer`;
  return geo.accuracy < 0 ? `${path}.geo.accuracy must be a positive number` : undefined;
}

/** Prebid Server's decoder names the Go fields of `app.ext.prebid`; its clients match on that wording. */
const APP_EXT_DECODER_CONTEXTS = [
  ['source', 'cannot unmarshal openrtb_ext.ExtAppPrebid.Source'],
  ['version', 'cannot unmarshal openrtb_ext.ExtAppPrebid.Version'],
] as const;

function checkApp(app: JsonObject, scope: ValidationScope): void {
  const ext = checkExt(app, EXT_PATHS.app, scope);
  if (ext === undefined) return;
  for (const namespace of namespacesInOrder(scope.namespace)) {
    const options = ext[namespace];
    if (!isJsonObject(options)) continue;
    for (const [field, decoderContext] of APP_EXT_DECODER_CONTEXTS) {
      scope.report.addError(fieldKindError(options, field, 'string', EXT_PATHS.app.namespaces[namespace], decoderContext));
    }
  }
}

function checkDooh(dooh: JsonObject, scope: ValidationScope): void {
  if (!isNonEmptyString(dooh.id) && !isPresent(dooh.venuetype)) {
    scope.report.addError('request.dooh should include at least one of request.dooh.id or request.dooh.venuetype.');
  }
}

export function checkDevice(request: JsonObject, scope: ValidationScope): void {
  const device = scope.report.optionalObject(request.device, 'request.device');
  if (device === undefined) return;
  scope.report.addError(nonNegativeIntegerFieldsError(device, DEVICE_SIZE_FIELDS, 'request.device'));
  scope.report.addError(geoAccuracyError(device, 'request.device'));
  const ext = checkExt(device, EXT_PATHS.device, scope);
  if (ext === undefined) return;
  for (const namespace of namespacesInOrder(scope.namespace)) {
    const options = ext[namespace];
    if (!isJsonObject(options) || !isPresent(options.interstitial)) continue;
    const settings = readInterstitialSettings(options.interstitial, `${EXT_PATHS.device.namespaces[namespace]}.interstitial`, scope);
    scope.interstitial ??= settings;
  }
}

/**
 * `device.ext.<ns>.interstitial` as Prebid Server's ExtDeviceInt decoder reads it: both shares must be there, as
 * whole numbers from 0 to 100 (anything else, a value that is no object included, fails on the first one read).
 */
function readInterstitialSettings(interstitial: unknown, path: string, scope: ValidationScope): InterstitialSettings | undefined {
  const settings = isJsonObject(interstitial) ? interstitial : {};
  const error = percentError(settings.minwidthperc, `${path}.minwidthperc`)
    ?? percentError(settings.minheightperc, `${path}.minheightperc`);
  scope.report.addError(error);
  if (error !== undefined) return undefined;
  return { minWidthPercent: settings.minwidthperc as number, minHeightPercent: settings.minheightperc as number };
}

/** Both shares are required, as Prebid Server's ExtDeviceInt decoder requires them: without one there is no size range. */
function percentError(value: unknown, path: string): string | undefined {
  const valid = typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 100;
  return valid ? undefined : `${path} must be a number between 0 and 100`;
}

/** A value Go decodes into an `int8`, as `regs.ext.gdpr` is. */
function isInt8(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= -128 && value <= 127;
}

/**
 * GDPR applies (1) or not (0); any other value is a mistake the bidders could not interpret. As Prebid Server reads
 * it: `regs.ext.gdpr` must decode as an integer (its ext decoder's error), and it is then moved to `regs.gdpr` unless
 * that is set (where it is judged; beside a `regs.gdpr` it is dropped unjudged).
 */
export function checkRegs(request: JsonObject, scope: ValidationScope): void {
  const regs = scope.report.optionalObject(request.regs, 'request.regs');
  if (regs === undefined) return;
  scope.report.addError(kindError(regs.us_privacy, 'string', 'request.regs.us_privacy'));
  const ext = checkExt(regs, EXT_PATHS.regs, scope, REGS_EXT_FIELDS);
  const extGdpr = ext?.gdpr;
  if (isPresent(extGdpr) && !isInt8(extGdpr)) {
    scope.report.addError(`${EXT_PATHS.regs.decoderContext}: gdpr must be an integer (request.regs.ext.gdpr must be 0 or 1)`);
  }
  const gdpr = isPresent(regs.gdpr) ? regs.gdpr : isInt8(extGdpr) ? extGdpr : undefined;
  if (isPresent(gdpr) && gdpr !== 0 && gdpr !== 1) scope.report.addError('request.regs.gdpr must be either 0 or 1');
}

/** `request.source`: its ext as Prebid Server decodes it (`req.source.ext is invalid: ...`). */
export function checkSource(request: JsonObject, scope: ValidationScope): void {
  const source = scope.report.optionalObject(request.source, 'request.source');
  if (source !== undefined) checkExt(source, EXT_PATHS.source, scope, SOURCE_EXT_FIELDS);
}

export function checkUser(request: JsonObject, scope: ValidationScope): void {
  const user = scope.report.optionalObject(request.user, 'request.user');
  if (user === undefined) return;
  scope.report.addError(kindError(user.consent, 'string', 'request.user.consent'));
  scope.report.addError(kindError(user.buyeruid, 'string', 'request.user.buyeruid'));
  scope.report.addError(geoAccuracyError(user, 'request.user'));
  const ext = checkExt(user, EXT_PATHS.user, scope, USER_EXT_FIELDS);
  if (ext === undefined) return;
  for (const namespace of namespacesInOrder(scope.namespace)) {
    const options = ext[namespace];
    if (!isJsonObject(options)) continue;
    // The service's part of user.ext holds only the buyer ids: without them it has no reason to be there.
    const path = EXT_PATHS.user.namespaces[namespace];
    const undecodable = buyerUidsDecodeProblem(options.buyeruids);
    if (undecodable !== undefined) {
      scope.report.addError(`${EXT_PATHS.user.decoderContext}: ${undecodable} (${path}.buyeruids must map bidder names to user id strings)`);
      continue;
    }
    if (!isPresent(options.buyeruids) || (isJsonObject(options.buyeruids) && Object.keys(options.buyeruids).length === 0)) {
      scope.report.addError(`${path} requires a "buyeruids" property with at least one ID defined. If none exist, then ${path} should not be defined.`);
      continue;
    }
    checkBuyerUids(options.buyeruids as JsonObject, `${path}.buyeruids`, scope);
  }
}

/** The links to `buyeruids` in Prebid Server's user ext struct, which its decoder names. */
const BUYER_UIDS_LINKS = ['openrtb_ext.ExtUserPrebid.BuyerUIDs'] as const;

/** `buyeruids` as Prebid Server decodes it (a Go `map[string]string`): its decoder's text, or undefined when it fits. */
function buyerUidsDecodeProblem(buyerUids: unknown): string | undefined {
  if (!isPresent(buyerUids)) return undefined;
  try {
    const uids = goMap(buyerUids, BUYER_UIDS_LINKS);
    for (const bidder in uids) if (Object.hasOwn(uids, bidder)) goString(uids[bidder], BUYER_UIDS_LINKS);
    return undefined;
  } catch (err) {
    if (err instanceof GoDecodeError) return err.message;
    throw err;
  }
}

/** `user.ext.<ns>.buyeruids` (decoded already): a non-empty map from known bidders (or aliases) to their ids for this user. */
function checkBuyerUids(uids: JsonObject, path: string, scope: ValidationScope): void {
  for (const bidder in uids) {
    if (!Object.hasOwn(uids, bidder)) continue; // see hasOwnKeys
    // As Prebid Server checks these keys: an enabled host bidder in any case, else a request alias spelt exactly.
    const hostBidder = scope.bidders.hostBidder(bidder);
    if ((hostBidder !== undefined && scope.bidders.isEnabled(hostBidder)) || scope.bidders.isAliasAsSpelt(bidder)) continue;
    // The path `request.user.ext.<bidder>` is the one Prebid Server clients know for a buyeruids key.
    scope.report.addError(`request.user.ext.${bidder} is neither a known bidder name nor an alias in `
      + `${scope.optionsPaths.aliases}`);
  }
}
