/**
 * The core's request validation (reference behaviour section 2): one pass over the request that collects every
 * 400 line, the warnings, and the normalisations validation implies (native asset ids, interstitial sizes,
 * dropping unknown imp.ext keys).
 */
import type { ModuleDeps, RequestValidator } from '../../core/api/index.js';
import { BidderDirectory } from './checks/bidder-directory.js';
import { checkEids } from './checks/eids.js';
import { checkImps, impProblemAfterFirstPartyData } from './checks/imp.js';
import { checkDevice, checkDistributionChannel, checkRegs, checkSource, checkUser } from './checks/parties.js';
import { ValidationReport } from './checks/report.js';
import {
  checkAliases, checkAliasGvlIds, checkBidAdjustmentFactors, checkBidAdjustments, checkBidderControls, checkCache, checkChannel, checkCurrencyRates, checkEidPermissions, checkMultiBid, checkNoSale,
  checkStoredRequest, checkTargeting,
} from './checks/request-options.js';
import { firstNamespaceIn, NAMESPACES, optionsPathsFor, type Namespace, type ValidationScope } from './checks/scope.js';
import { extRequestPrebidDecodeProblem, isJsonObject, openrtb2DecodeProblem, undecodableImpOptions, WarningCode } from '../../core/api/index.js';
import { fieldKindError, isPresent, kindError, type JsonObject } from './checks/values.js';

type ValidationDeps = Pick<ModuleDeps, 'bidders' | 'validateBidderParams'>;

export function createRequestValidator(deps: ValidationDeps): RequestValidator {
  return {
    validate: (request, context) => validateBidRequest(request, context.namespace, deps).settle(request, context),
    validateImp: (imp, index) => impProblemAfterFirstPartyData(imp as unknown as JsonObject, index),
  };
}

function validateBidRequest(request: unknown, namespace: Namespace, deps: ValidationDeps): ValidationReport {
  const report = new ValidationReport();
  if (!isJsonObject(request)) {
    report.addError('request body must be a JSON object');
    return report;
  }
  // Prebid Server reads each imp's ext.prebid before anything else, and stops with all it cannot decode.
  const undecodableImps = undecodableImpOptions(request.imp, NAMESPACES);
  if (undecodableImps !== undefined) {
    for (const problem of undecodableImps) report.addError(problem);
    return report;
  }
  // Prebid Server decodes the request into its OpenRTB structs next, and stops at a member of the wrong JSON type.
  const undecodable = openrtb2DecodeProblem(request);
  if (undecodable !== undefined) {
    report.addError(undecodable);
    return report;
  }
  const declaredNamespace = isJsonObject(request.ext) ? firstNamespaceIn(request.ext, namespace) : undefined;
  const scope: ValidationScope = {
    namespace,
    declaredNamespace,
    optionsPaths: optionsPathsFor(declaredNamespace ?? namespace),
    bidders: new BidderDirectory(deps.bidders),
    validateBidderParams: deps.validateBidderParams,
    report,
  };
  checkTopLevelFields(request, report);
  const options = requestOptions(request, scope);
  // Aliases come first: every later check resolves bidder names through them.
  checkAliases(options, scope);
  checkAliasGvlIds(options, scope);
  checkBidAdjustmentFactors(options, scope);
  checkEidPermissions(options, scope);
  checkTargeting(options, scope);
  checkMultiBid(options, scope);
  checkBidAdjustments(options, scope);
  checkBidderControls(options, scope);
  checkCache(options, scope);
  checkCurrencyRates(options, scope);
  checkChannel(options, scope);
  checkStoredRequest(options, scope);
  checkDistributionChannel(request, scope);
  // The device comes before the imps: it carries the interstitial settings they need.
  checkDevice(request, scope);
  checkSource(request, scope);
  checkRegs(request, scope);
  checkUser(request, scope);
  checkNoSale(request, options, scope);
  checkEids(request, scope);
  checkImps(request, scope);
  return report;
}

/** Stands for the options of a request that has none (the checks only read them). */
const NO_OPTIONS: JsonObject = Object.freeze({});

/** How Prebid Server words a `request.ext` it cannot decode into its typed fields (see kindError). */
const REQUEST_EXT_DECODER = 'req.ext is invalid';

/**
 * `request.ext.<ns>`, or an empty object when the request has no (usable) options. `request.ext`, its options and
 * its `schain` must be objects, the options' members of the JSON types their Go fields hold, as Prebid Server decodes them (`req.ext is invalid: expect { or n, but found 1`).
 */
function requestOptions(request: JsonObject, scope: ValidationScope): JsonObject {
  const ext = request.ext;
  if (!isJsonObject(ext)) {
    scope.report.addError(kindError(ext, 'object', 'request.ext', REQUEST_EXT_DECODER));
    return NO_OPTIONS;
  }
  const options = scope.declaredNamespace === undefined ? undefined : ext[scope.declaredNamespace];
  scope.report.addError(kindError(options, 'object', scope.optionsPaths.options, REQUEST_EXT_DECODER));
  // Its members as Prebid Server's ExtRequestPrebid holds them: the first of the wrong JSON type, in its decoder's words.
  const undecodable = isJsonObject(options) ? extRequestPrebidDecodeProblem(options) : undefined;
  if (undecodable !== undefined) scope.report.addError(`${REQUEST_EXT_DECODER}: ${undecodable} (in ${scope.optionsPaths.options})`);
  scope.report.addError(fieldKindError(ext, 'schain', 'object', 'request.ext', REQUEST_EXT_DECODER));
  return isJsonObject(options) ? options : NO_OPTIONS;
}

function checkTopLevelFields(request: JsonObject, report: ValidationReport): void {
  const { id, tmax } = request;
  if (!isPresent(id) || id === '') report.addError('request missing required field: "id"');
  else if (typeof id !== 'string') report.addError('request.id must be a string');
  if (isPresent(tmax)) {
    if (typeof tmax !== 'number' || !Number.isInteger(tmax)) report.addError('request.tmax must be an integer');
    else if (tmax < 0) report.addError(`request.tmax must be nonnegative. Got ${tmax}`);
  }
  // One currency per auction, as in Prebid Server: the first one listed, and the bidders are sent only that one.
  const currencies = request.cur;
  if (Array.isArray(currencies) && currencies.length > 1) {
    report.addWarning(WarningCode.Uncoded, `A prebid request can only process one currency. Taking the first currency in the list, ${String(currencies[0])}, as the active currency`);
    report.addChange(({ request: changed }) => {
      if (Array.isArray(changed.cur)) changed.cur = changed.cur.slice(0, 1);
    });
  }
  // Specification 4.1: seat allow/block lists are not supported; bidders are chosen per imp.
  if (isPresent(request.wseat)) {
    report.addError('request.wseat is not supported. Remove it: the bidders of each imp are the ones named in request.imp[i].ext.');
  }
  if (isPresent(request.bseat)) {
    report.addError('request.bseat is not supported. Remove it, and leave the bidders you want to block out of request.imp[i].ext.');
  }
}
