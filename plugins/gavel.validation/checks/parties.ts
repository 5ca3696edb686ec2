/** Checks of the request's top-level objects other than imps: site/app/dooh, device, regs, user. */
import { namespaceKeysIn, type InterstitialSettings, type ValidationScope } from './scope.js';
import {
  firstError, isNonEmptyString, isObject, isPresent, kindError, nonNegativeIntegerFieldsError,
  type JsonKind, type JsonObject,
} from './values.js';

const CHANNELS = ['site', 'app', 'dooh'] as const;
const SITE_IDENTITY_MISSING = 'request.site should include at least one of request.site.id or request.site.page.';

/** The decoder wording for a type error inside `request.<object>.ext` (see kindError). */
const extDecoderContext = (object: string): string => `req.${object}.ext is invalid`;

/**
 * `request.<object>.ext` must be an object, its `fields` of the given kinds, and each service namespace in it an
 * object. Returns the namespace objects with their paths, for the caller's own checks.
 */
function checkExt(
  object: JsonObject, name: string, scope: ValidationScope, fields: Record<string, JsonKind> = {},
): Array<{ path: string; options: JsonObject }> {
  const ext = object.ext;
  const path = `request.${name}.ext`;
  const error = kindError(ext, 'object', path, extDecoderContext(name));
  if (error !== undefined || !isObject(ext)) {
    scope.report.addError(error);
    return [];
  }
  for (const [field, kind] of Object.entries(fields)) {
    scope.report.addError(kindError(ext[field], kind, `${path}.${field}`, extDecoderContext(name)));
  }
  return namespaceKeysIn(ext, scope.namespace).flatMap((key) => {
    const options = ext[key];
    if (isObject(options)) return [{ path: `${path}.${key}`, options }];
    scope.report.addError(`${path}.${key} must be an object`);
    return [];
  });
}

/** Exactly one of site, app or dooh; each identifies itself. */
export function checkDistributionChannel(request: JsonObject, scope: ValidationScope): void {
  const present = CHANNELS.filter((channel) => isPresent(request[channel]));
  if (present.length > 1) {
    scope.report.addError('No more than one of request.site or request.app or request.dooh can be defined');
  }
  // No channel at all reads as an empty site: the most common channel, and the line Prebid Server clients know.
  if (present.length === 0) scope.report.addError(SITE_IDENTITY_MISSING);
  for (const channel of present) {
    const object = request[channel];
    if (!isObject(object)) {
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
  checkExt(site, 'site', scope);
}

function checkApp(app: JsonObject, scope: ValidationScope): void {
  for (const { path, options } of checkExt(app, 'app', scope)) {
    for (const field of ['source', 'version']) {
      const goField = field.charAt(0).toUpperCase() + field.slice(1);
      scope.report.addError(kindError(options[field], 'string', `${path}.${field}`,
        `cannot unmarshal openrtb_ext.ExtAppPrebid.${goField}`));
    }
  }
}

function checkDooh(dooh: JsonObject, scope: ValidationScope): void {
  if (!isNonEmptyString(dooh.id) && !isPresent(dooh.venuetype)) {
    scope.report.addError('request.dooh should include at least one of request.dooh.id or request.dooh.venuetype.');
  }
}

export function checkDevice(request: JsonObject, scope: ValidationScope): void {
  const device = scope.report.optionalObject(request.device, 'request.device must be an object');
  if (device === undefined) return;
  scope.report.addError(nonNegativeIntegerFieldsError(device, ['w', 'h', 'ppi'], 'request.device'));
  for (const { path, options } of checkExt(device, 'device', scope)) {
    const settings = readInterstitialSettings(options.interstitial, `${path}.interstitial`, scope);
    scope.interstitial ??= settings;
  }
}

function readInterstitialSettings(interstitial: unknown, path: string, scope: ValidationScope): InterstitialSettings | undefined {
  const settings = scope.report.optionalObject(interstitial, `${path} must be an object with "minwidthperc" and "minheightperc"`);
  if (settings === undefined) return undefined;
  const error = firstError(['minwidthperc', 'minheightperc'].map((field) => percentError(settings[field], `${path}.${field}`)));
  scope.report.addError(error);
  if (error !== undefined) return undefined;
  return {
    minWidthPercent: (settings.minwidthperc as number | undefined) ?? 0,
    minHeightPercent: (settings.minheightperc as number | undefined) ?? 0,
  };
}

function percentError(value: unknown, path: string): string | undefined {
  if (!isPresent(value)) return undefined;
  const valid = typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 100;
  return valid ? undefined : `${path} must be a number between 0 and 100`;
}

/** GDPR applies (1) or not (0); any other value is a mistake the bidders could not interpret. */
function gdprError(value: unknown, path: string): string | undefined {
  return isPresent(value) && value !== 0 && value !== 1 ? `${path} must be either 0 or 1` : undefined;
}

export function checkRegs(request: JsonObject, scope: ValidationScope): void {
  const regs = scope.report.optionalObject(request.regs, 'request.regs must be an object');
  if (regs === undefined) return;
  scope.report.addError(gdprError(regs.gdpr, 'request.regs.gdpr'));
  scope.report.addError(kindError(regs.us_privacy, 'string', 'request.regs.us_privacy'));
  checkExt(regs, 'regs', scope, { us_privacy: 'string' });
  if (isObject(regs.ext)) scope.report.addError(gdprError(regs.ext.gdpr, 'request.regs.ext.gdpr'));
}

export function checkUser(request: JsonObject, scope: ValidationScope): void {
  const user = scope.report.optionalObject(request.user, 'request.user must be an object');
  if (user === undefined) return;
  scope.report.addError(kindError(user.consent, 'string', 'request.user.consent'));
  scope.report.addError(kindError(user.buyeruid, 'string', 'request.user.buyeruid'));
  for (const { path, options } of checkExt(user, 'user', scope, { consent: 'string', eids: 'array' })) {
    checkBuyerUids(options.buyeruids, `${path}.buyeruids`, scope);
  }
}

/** `user.ext.<ns>.buyeruids`: a non-empty map from known bidders (or aliases) to their ids for this user. */
function checkBuyerUids(buyerUids: unknown, path: string, scope: ValidationScope): void {
  const uids = scope.report.optionalObject(buyerUids, `${path} must be an object mapping bidder names to user ids`);
  if (uids === undefined) return;
  const entries = Object.entries(uids);
  if (entries.length === 0) {
    scope.report.addError(`${path} must contain at least one bidder's user id. Leave it out when there is none.`);
  }
  for (const [bidder, uid] of entries) {
    scope.report.addError(kindError(uid, 'string', `${path}.${bidder}`));
    if (scope.bidders.resolve(bidder) !== undefined) continue;
    // The path `request.user.ext.<bidder>` is the one Prebid Server clients know for a buyeruids key.
    scope.report.addError(`request.user.ext.${bidder} is neither a known bidder name nor an alias in `
      + `${scope.optionsPath}.aliases`);
  }
}
