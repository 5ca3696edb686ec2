import type { BidderDirectory } from './bidder-directory.js';
import { priceGranularityError } from './price-granularity.js';
import type { ValidationScope } from './scope.js';
import { fieldKindError, isNonEmptyString, isObject, isPresent, type JsonObject } from './values.js';

/**
 * Aliases first: every other check resolves bidder names through them. Only well-formed aliases are registered,
 * so a broken alias is reported once, where it is defined.
 */
export function checkAliases(options: JsonObject, scope: ValidationScope): void {
  const path = scope.optionsPaths.aliases;
  const aliases = scope.report.optionalObject(options.aliases, path, 'must be an object mapping alias names to bidder names');
  if (aliases === undefined) return;
  for (const [alias, target] of Object.entries(aliases)) {
    const outcome = resolveAlias(alias, target, `${path}.${alias}`, scope.bidders);
    if ('error' in outcome) scope.report.addError(outcome.error);
    else scope.bidders.addAlias(alias, outcome.hostBidder);
  }
}

function resolveAlias(alias: string, target: unknown, path: string, bidders: BidderDirectory): { hostBidder: string } | { error: string } {
  if (!isNonEmptyString(target)) return { error: `${path} must be a string naming a known bidder` };
  if (alias.toLowerCase() === target.toLowerCase()) {
    return { error: `${path} defines a no-op alias. Choose a different alias, or remove this entry.` };
  }
  const hostBidder = bidders.hostBidder(target);
  return hostBidder === undefined ? { error: `${path} refers to unknown bidder: ${target}` } : { hostBidder };
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
    if (isObject(mediaFactors)) checkFactorsByBidder(mediaFactors, mediaPath, scope);
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

const TARGETING_FLAGS = ['includewinners', 'includebidderkeys', 'includeformat', 'preferdeals', 'appendbiddernames'];

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
}

/** The first problem among the granularities by media type. */
function mediaTypeGranularityError(byMediaType: unknown, path: string): string | undefined {
  if (!isPresent(byMediaType)) return undefined;
  if (!isObject(byMediaType)) return `${path} must be an object mapping media types to granularities`;
  for (const mediaType in byMediaType) {
    if (!Object.hasOwn(byMediaType, mediaType)) continue; // see hasOwnKeys
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
    scope.report.addError(`${path} requires one of the "bids" or "vastxml" properties`);
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
  if (!isObject(storedRequest)) return `${path} must be an object with a string "id"`;
  return isPresent(storedRequest.id) && typeof storedRequest.id !== 'string' ? `${path}.id must be a string` : undefined;
}
