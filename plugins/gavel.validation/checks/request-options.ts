import type { BidderDirectory } from './bidder-directory.js';
import { priceGranularityError } from './price-granularity.js';
import type { ValidationScope } from './scope.js';
import { bidAdjustmentsAreValid, currencyCodeProblem, isJsonObject, isWrittenAsPrebidServer, SAFE_NAME, WarningCode, writeRequestOptionsAsPrebidServer } from '../../../core/api/index.js';
import { fieldKindError, isNonEmptyString, isPresent, type JsonObject } from './values.js';

/**
 * Aliases first: every other check resolves bidder names through them. Only well-formed aliases are registered,
 * so a broken alias is reported once, where it is defined.
 */
export function checkAliases(options: JsonObject, scope: ValidationScope): void {
  const path = scope.optionsPaths.aliases;
  const aliases = scope.report.optionalObject(options.aliases, path, 'must be an object mapping alias names to bidder names');
  if (aliases === undefined) return;
  let renamed: JsonObject | undefined;
  for (const [alias, target] of Object.entries(aliases)) {
    const outcome = resolveAlias(alias, target, `${path}.${alias}`, scope.bidders);
    if ('error' in outcome) scope.report.addError(outcome.error);
    else {
      scope.bidders.addAlias(alias, outcome.hostBidder);
      if (outcome.hostBidder !== target) (renamed ??= {})[alias] = outcome.hostBidder;
    }
  }
  if (renamed) nameAliasTargetsAsHost(renamed, scope);
}

/**
 * Prebid Server's validateAliases writes each alias target as its core bidder's name (`AppNexus` becomes
 * `appnexus`) into its struct, in place: the validated request shows it only when `ext.<ns>` is written back from
 * that struct (targeting defaults, an app's channel, a multibid list, an account's integration). Bidders always get
 * the core name (core/bidder-requests).
 */
function nameAliasTargetsAsHost(renamed: JsonObject, scope: ValidationScope): void {
  const namespace = scope.declaredNamespace ?? scope.namespace;
  scope.report.addChange(({ request }) => {
    const own = request.ext?.[namespace];
    if (isJsonObject(own) && isJsonObject(own.aliases) && isWrittenAsPrebidServer(own)) own.aliases = { ...own.aliases, ...renamed };
  });
}

function resolveAlias(alias: string, target: unknown, path: string, bidders: BidderDirectory): { hostBidder: string } | { error: string } {
  if (!SAFE_NAME.test(alias)) {
    return { error: `${path.slice(0, path.length - alias.length)}${JSON.stringify(alias.slice(0, 64))} is not a valid alias name: use 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit` };
  }
  if (!isNonEmptyString(target)) return { error: `${path} must be a string naming a known bidder` };
  if (alias.toLowerCase() === target.toLowerCase()) {
    return { error: `${path} defines a no-op alias. Choose a different alias, or remove this entry.` };
  }
  const hostBidder = bidders.hostBidder(target);
  if (hostBidder === undefined) return { error: `${path} refers to unknown bidder: ${target}` };
  return bidders.isEnabled(hostBidder) ? { hostBidder } : { error: `${path} refers to disabled bidder: ${target}` };
}

/**
 * `aliasgvlids` (`{alias: vendorId}`) gives a request alias its TCF vendor id for GDPR enforcement: it must name an
 * alias of this request and a vendor id of at least 1. Runs after checkAliases, which registers the aliases.
 */
export function checkAliasGvlIds(options: JsonObject, scope: ValidationScope): void {
  const path = `${scope.optionsPaths.options}.aliasgvlids`;
  const vendorIds = scope.report.optionalObject(options.aliasgvlids, path, 'must be an object mapping request aliases to GVL vendor ids');
  if (vendorIds === undefined) return;
  const aliases = isJsonObject(options.aliases) ? options.aliases : {};
  for (const [alias, vendorId] of Object.entries(vendorIds)) {
    if (!Object.hasOwn(aliases, alias)) {
      scope.report.addError(`${path}. vendorId ${String(vendorId)} refers to unknown bidder alias: ${alias}`);
    } else if (typeof vendorId !== 'number' || !Number.isInteger(vendorId) || vendorId < 1) {
      scope.report.addError(`${path}. Invalid vendorId ${String(vendorId)} for alias: ${alias}. Choose a different vendorId, or remove this entry.`);
    }
  }
}

/**
 * `data.eidpermissions` (`[{source, bidders}]`): each rule names a source once and at least one bidder, each a bidder
 * the host runs or an alias of this request (spelt as declared), or `"*"` alone. The first broken rule is the request's error, as in Prebid Server.
 */
export function checkEidPermissions(options: JsonObject, scope: ValidationScope): void {
  const data = isJsonObject(options.data) ? options.data : undefined;
  if (data === undefined || !isPresent(data.eidpermissions)) return;
  const path = `${scope.optionsPaths.options}.data.eidpermissions`;
  const rules = data.eidpermissions;
  if (!Array.isArray(rules)) {
    scope.report.addError(`${path} must be an array of {"source", "bidders"}`);
    return;
  }
  const sources = new Set<string>();
  for (let index = 0; index < rules.length; index++) {
    const error = eidPermissionError(rules[index], `${path}[${index}]`, sources, scope);
    if (error !== undefined) {
      scope.report.addError(error);
      return;
    }
  }
}

function eidPermissionError(rule: unknown, path: string, sources: Set<string>, scope: ValidationScope): string | undefined {
  if (!isJsonObject(rule)) return `${path} must be an object with "source" and "bidders"`;
  const { source, bidders } = rule;
  if (!isNonEmptyString(source)) return `${path} missing required field: "source"`;
  if (sources.has(source)) return `${path} duplicate entry with field: "source"`;
  sources.add(source);
  if (!Array.isArray(bidders) || bidders.length === 0) return `${path} missing or empty required field: "bidders"`;
  for (const bidder of bidders) {
    if (bidder === '*') {
      if (bidders.length > 1) return `${path} contains bidder wildcard "*" mixed with specific bidders`;
    } else if (typeof bidder !== 'string' || !isEidPermissionBidder(bidder, scope)) {
      return `${path} contains unrecognized bidder "${String(bidder)}"`;
    }
  }
  return undefined;
}

/**
 * Prebid Server's validateBidders: a bidder the host runs, in any case (a host bidder switched off is unrecognized),
 * or a request alias spelt exactly as declared.
 */
function isEidPermissionBidder(name: string, scope: ValidationScope): boolean {
  if (scope.bidders.isAliasAsSpelt(name)) return true;
  const hostBidder = scope.bidders.hostBidder(name);
  return hostBidder !== undefined && scope.bidders.isEnabled(hostBidder);
}

/**
 * `channel` (`{name, version}`) names the integration that sent the request; when given, its name must be too (the
 * endpoint fills a channel only for requests that name none).
 */
export function checkChannel(options: JsonObject, scope: ValidationScope): void {
  if (!isPresent(options.channel)) return;
  const path = `ext.${scope.declaredNamespace ?? scope.namespace}.channel`;
  const channel = scope.report.optionalObject(options.channel, path, 'must be an object with "name" and "version"');
  if (channel !== undefined && !isNonEmptyString(channel.name)) scope.report.addError(`${path}.name can't be empty`);
}

/**
 * `nosale` lists the bidders the US opt-out does not hold back: `"*"` alone means all of them. As Prebid Server's CCPA
 * policy parses it at the endpoint (ccpa.Policy.Parse), `"*"` beside bidders and a name that is neither a bidder the
 * host knows nor a request alias refuse the request, the first one met in its words; a US privacy string it cannot
 * read is warned about first, and then the list is not looked at.
 */
export function checkNoSale(request: JsonObject, options: JsonObject, scope: ValidationScope): void {
  const noSale = options.nosale;
  if (!Array.isArray(noSale) || (noSale.length === 1 && noSale[0] === '*')) return;
  if (!isReadableUsPrivacy(usPrivacyOf(request))) return;
  const aliases = isJsonObject(options.aliases) ? options.aliases : undefined;
  for (const bidder of noSale) {
    let problem: string | undefined;
    if (bidder === '*') problem = 'can only specify all bidders if no other bidders are provided';
    else if (typeof bidder === 'string' && scope.bidders.hostBidder(bidder) === undefined && !(aliases && Object.hasOwn(aliases, bidder))) problem = `unrecognized bidder '${bidder}'`;
    if (problem !== undefined) {
      scope.report.addError(`${scope.optionsPaths.options}.nosale is invalid: ${problem}`);
      return;
    }
  }
}

/** `regs.us_privacy` (or its 2.5 home), '' when absent. */
function usPrivacyOf(request: JsonObject): unknown {
  const regs = isJsonObject(request.regs) ? request.regs : undefined;
  if (regs?.us_privacy !== undefined) return regs.us_privacy;
  return isJsonObject(regs?.ext) ? regs.ext.us_privacy ?? '' : '';
}

/** Whether Prebid Server's CCPA parser reads this string: empty, or four characters `1` then N, Y or - thrice. */
function isReadableUsPrivacy(value: unknown): boolean {
  return value === '' || (typeof value === 'string' && /^1[NY-]{3}$/.test(value));
}

/**
 * `currency.rates` (`{FROM: {TO: rate}}`): every code must be a currency Prebid Server can read, in any case (its
 * `currency code <code> is not recognized or malformed`, naming the first one).
 */
export function checkCurrencyRates(options: JsonObject, scope: ValidationScope): void {
  const currency = options.currency;
  const rates = isJsonObject(currency) ? currency.rates : undefined;
  if (!isJsonObject(rates)) return;
  for (const [from, toRates] of Object.entries(rates)) {
    const unknown = currencyCodeProblem(from) === undefined ? (isJsonObject(toRates) ? Object.keys(toRates).find((to) => currencyCodeProblem(to) !== undefined) : undefined) : from;
    if (unknown !== undefined) {
      scope.report.addError(`currency code ${unknown} is not recognized or malformed`);
      return;
    }
  }
}

/** `bidadjustmentfactors` is `{<bidder>: factor}`, optionally with `mediatypes: {<type>: {<bidder>: factor}}`. */
export function checkBidAdjustmentFactors(options: JsonObject, scope: ValidationScope): void {
  const path = scope.optionsPaths.bidAdjustmentFactors;
  const factors = scope.report.optionalObject(options.bidadjustmentfactors, path, 'must be an object mapping bidder names to factors');
  if (factors === undefined) return;
  const { mediatypes, ...byBidder } = factors;
  checkFactorsByBidder(byBidder, path, scope);
  const byMediaType = scope.report.optionalObject(mediatypes, `${path}.mediatypes`, 'must be an object mapping media types to bidder factors');
  for (const [mediaType, mediaFactors] of Object.entries(byMediaType ?? {})) {
    const mediaPath = `${path}.mediatypes.${mediaType}`;
    if (isJsonObject(mediaFactors)) checkFactorsByBidder(mediaFactors, mediaPath, scope);
    else scope.report.addError(`${mediaPath} must be an object mapping bidder names to factors`);
  }
}

function checkFactorsByBidder(factors: JsonObject, path: string, scope: ValidationScope): void {
  const namesByBidder = new Map<string, string[]>();
  for (const [name, factor] of Object.entries(factors)) {
    scope.report.addError(factorError(factor, `${path}.${name}`) ?? factorBidderError(name, `${path}.${name}`, scope));
    const key = name.toLowerCase();
    namesByBidder.set(key, [...(namesByBidder.get(key) ?? []), name]);
  }
  for (const names of namesByBidder.values()) {
    if (names.length < 2) continue;
    const listed = names.map((name) => `"${name}"`).join(', ');
    scope.report.addError(`cannot have multiple bidders that differ only in case style: ${path} names ${listed}. `
      + 'Keep one entry per bidder.');
  }
}

function factorError(factor: unknown, path: string): string | undefined {
  if (typeof factor === 'number' && factor > 0) return undefined;
  const got = typeof factor === 'number' ? factor.toFixed(6) : JSON.stringify(factor);
  return `${path} must be a positive number. Got ${got}`;
}

function factorBidderError(name: string, path: string, scope: ValidationScope): string | undefined {
  return scope.bidders.resolve(name) === undefined ? `${path} is not a known bidder or alias` : undefined;
}

const TARGETING_FLAGS = ['includewinners', 'includebidderkeys', 'includeformat', 'preferdeals', 'appendbiddernames', 'alwaysincludedeals', 'requireexactduration'];

export function checkTargeting(options: JsonObject, scope: ValidationScope): void {
  const paths = scope.optionsPaths;
  const targeting = scope.report.optionalObject(options.targeting, paths.targeting);
  if (targeting === undefined) return;
  for (const flag of TARGETING_FLAGS) scope.report.addError(fieldKindError(targeting, flag, 'boolean', paths.targeting));
  // Asking for includeformat still states what targeting is wanted; Prebid Server clients send that and get a 200.
  if (targeting.includewinners === false && targeting.includebidderkeys === false && targeting.includeformat !== true) {
    scope.report.addError(`${paths.targeting}: at least one of includewinners or includebidderkeys must be true`);
  }
  scope.report.addError(priceGranularityError(targeting.pricegranularity, paths.priceGranularity));
  scope.report.addError(mediaTypeGranularityError(targeting.mediatypepricegranularity, paths.mediaTypePriceGranularity));
  scope.report.addError(fieldKindError(targeting, 'prefix', 'string', paths.targeting));
  scope.report.addError(durationsError(targeting.durationrangesec, `${paths.targeting}.durationrangesec`));
  scope.report.addError(brandCategoryError(targeting.includebrandcategory, `${paths.targeting}.includebrandcategory`));
}

function durationsError(durations: unknown, path: string): string | undefined {
  if (!isPresent(durations)) return undefined;
  const valid = Array.isArray(durations) && durations.every((value) => typeof value === 'number' && Number.isInteger(value) && value > 0);
  return valid ? undefined : `${path} must be an array of durations in seconds (positive integers)`;
}

/** With categories to translate, the primary ad server names the mapping: 1 (FreeWheel) or 2 (Google Ad Manager). */
function brandCategoryError(brand: unknown, path: string): string | undefined {
  if (!isPresent(brand)) return undefined;
  if (!isJsonObject(brand)) return `${path} must be an object`;
  if (brand.withcategory !== true || brand.translatecategories === false) return undefined;
  return brand.primaryadserver === 1 || brand.primaryadserver === 2
    ? undefined
    : `${path}.primaryadserver ${JSON.stringify(brand.primaryadserver ?? null)} not recognized: use 1 (FreeWheel) or 2 (Google Ad Manager), or "translatecategories": false`;
}

const MEDIA_TYPE_NAMES = new Set(['banner', 'video', 'audio', 'native']);

/** `biddercontrols.<bidder>.prefmtype`: the media type a bidder without multi-format support is sent. */
export function checkBidderControls(options: JsonObject, scope: ValidationScope): void {
  const path = `${scope.optionsPaths.options}.biddercontrols`;
  const controls = scope.report.optionalObject(options.biddercontrols, path, 'must be an object mapping bidder names to {"prefmtype"}');
  if (controls === undefined) return;
  for (const [bidder, control] of Object.entries(controls)) {
    const controlPath = `${path}.${bidder}`;
    if (!isJsonObject(control)) scope.report.addError(`${controlPath} must be an object`);
    else if (isPresent(control.prefmtype) && !MEDIA_TYPE_NAMES.has(control.prefmtype as string)) {
      scope.report.addError(`${controlPath}.prefmtype must be one of "banner", "video", "audio", "native". Got ${JSON.stringify(control.prefmtype)}`);
    }
  }
}

/** Most bids one bidder may have keyed in one imp (Prebid Server's `MaxBidLimit`). */
const MAX_BIDS = 9;

/**
 * `multibid` as Prebid Server validates it: entries without `maxbids`, repeats of a bidder and entries naming no
 * bidder are dropped, `maxbids` is brought within 1..9, `bidders` beside `bidder` and a `targetbiddercodeprefix` beside
 * `bidders` are ignored; each with a warning (10006). The request keeps only the entries that survive.
 */
export function checkMultiBid(options: JsonObject, scope: ValidationScope): void {
  const entries = options.multibid;
  if (!isPresent(entries)) return;
  const path = `${scope.optionsPaths.options}.multibid`;
  if (!Array.isArray(entries) || !entries.every(isJsonObject)) {
    scope.report.addError(`${path} must be an array of {"bidder" or "bidders", "maxbids", "targetbiddercodeprefix"}`);
    return;
  }
  // Every change to an entry comes with its warning: no warning, nothing to rewrite.
  let changed = false;
  const warn = (message: string): void => {
    changed = true;
    scope.report.addWarning(WarningCode.MultiBid, message);
  };
  const seen = new Set<string>();
  const kept: JsonObject[] = [];
  for (const entry of entries as JsonObject[]) {
    let shown = describeMultiBid(entry);
    if (typeof entry.maxbids !== 'number' || !Number.isInteger(entry.maxbids)) {
      warn(`maxBids not defined for ${shown}`);
      continue;
    }
    let maxbids = entry.maxbids;
    if (maxbids < 1 || maxbids > MAX_BIDS) {
      warn(`invalid maxBids value, using ${maxbids < 1 ? 'minimum 1' : `maximum ${MAX_BIDS}`} limit for ${shown}`);
      maxbids = maxbids < 1 ? 1 : MAX_BIDS;
      // Prebid Server clamps the entry in place: its later warnings show the limit it now holds.
      shown = describeMultiBid({ ...entry, maxbids });
    }
    if (isNonEmptyString(entry.bidder)) {
      if (seen.has(entry.bidder)) {
        warn(`multiBid already defined for ${entry.bidder}, ignoring this instance ${shown}`);
        continue;
      }
      if (isPresent(entry.bidders)) warn(`ignoring bidders from ${shown}`);
      seen.add(entry.bidder);
      kept.push({ bidder: entry.bidder, maxbids, ...(isPresent(entry.targetbiddercodeprefix) && { targetbiddercodeprefix: entry.targetbiddercodeprefix }) });
    } else if (Array.isArray(entry.bidders) && entry.bidders.length > 0) {
      const bidders: string[] = [];
      for (const bidder of entry.bidders) {
        if (typeof bidder !== 'string') continue;
        if (seen.has(bidder)) warn(`multiBid already defined for ${bidder}, ignoring this instance ${shown}`);
        else {
          seen.add(bidder);
          bidders.push(bidder);
        }
      }
      if (isPresent(entry.targetbiddercodeprefix) && entry.targetbiddercodeprefix !== '') warn(`ignoring targetbiddercodeprefix for ${shown}`);
      if (bidders.length > 0) kept.push({ maxbids, bidders });
    } else {
      warn(`bidder(s) not specified for ${shown}`);
    }
  }
  if (!changed) return;
  const namespace = scope.declaredNamespace ?? scope.namespace;
  scope.report.addChange(({ request }) => {
    const own = request.ext?.[namespace];
    if (isJsonObject(own)) own.multibid = kept;
  });
}

/**
 * `bidadjustments` as Prebid Server's endpoint validates it (`bidadjustment.Validate`): an object with any unusable
 * entry is dropped whole, with its warning (10008), and `ext.<ns>` is written back as its struct writes it (the
 * validated request and every bidder then see it without the adjustments). A usable one is left as it is.
 */
export function checkBidAdjustments(options: JsonObject, scope: ValidationScope): void {
  if (bidAdjustmentsAreValid(options.bidadjustments)) return;
  scope.report.addWarning(WarningCode.BidAdjustment, 'bid adjustment from request was invalid');
  const namespace = scope.declaredNamespace ?? scope.namespace;
  scope.report.addChange(({ request }) => {
    const own = request.ext?.[namespace];
    if (!isJsonObject(own)) return;
    delete own.bidadjustments;
    writeRequestOptionsAsPrebidServer(request, namespace);
  });
}

/** An entry as Prebid Server prints it in its warnings (Go's `%v` of its struct). */
function describeMultiBid(entry: JsonObject): string {
  const bidders = Array.isArray(entry.bidders) ? entry.bidders.join(' ') : '';
  const maxbids = typeof entry.maxbids === 'number' ? String(entry.maxbids) : '<nil>';
  const bidder = typeof entry.bidder === 'string' ? entry.bidder : '';
  const prefix = typeof entry.targetbiddercodeprefix === 'string' ? entry.targetbiddercodeprefix : '';
  return `{Bidder:${bidder}, Bidders:[${bidders}], MaxBids:${maxbids}, TargetBidderCodePrefix:${prefix}}`;
}

/**
 * The first problem among the granularities by media type. A member that names no media type is ignored, as Prebid
 * Server's struct ignores it.
 */
function mediaTypeGranularityError(byMediaType: unknown, path: string): string | undefined {
  if (!isPresent(byMediaType)) return undefined;
  if (!isJsonObject(byMediaType)) return `${path} must be an object mapping media types to granularities`;
  for (const mediaType in byMediaType) {
    if (!Object.hasOwn(byMediaType, mediaType) || !MEDIA_TYPE_NAMES.has(mediaType)) continue; // see hasOwnKeys
    const error = priceGranularityError(byMediaType[mediaType], `${path}.${mediaType}`);
    if (error !== undefined) return error;
  }
  return undefined;
}

/** Specification 2.11: `cache` holds `bids` and/or `vastxml`, at least one of them. */
export function checkCache(options: JsonObject, scope: ValidationScope): void {
  const path = scope.optionsPaths.cache;
  const cache = scope.report.optionalObject(options.cache, path);
  if (cache === undefined) return;
  if (!isPresent(cache.bids) && !isPresent(cache.vastxml)) {
    // Prebid Server words it as a malformed ext, and clients match on that.
    scope.report.addError(`request.ext is invalid: ${path} requires one of the "bids" or "vastxml" properties`);
    return;
  }
  scope.report.addError(fieldKindError(cache, 'bids', 'object', path) ?? fieldKindError(cache, 'vastxml', 'object', path));
}

/** The whole request's stored request (its path is spelled without `request.`: see OptionsPaths). */
export function checkStoredRequest(options: JsonObject, scope: ValidationScope): void {
  scope.report.addError(storedRequestError(options.storedrequest, scope.optionsPaths.storedRequest));
}

/** `ext.<ns>.storedrequest.id` (request or imp) names stored JSON by a string id. */
export function storedRequestError(storedRequest: unknown, path: string): string | undefined {
  if (!isPresent(storedRequest)) return undefined;
  if (!isJsonObject(storedRequest)) return `${path} must be an object with a string "id"`;
  return isPresent(storedRequest.id) && typeof storedRequest.id !== 'string' ? `${path}.id must be a string` : undefined;
}
