/** Checks of `request.imp[]`: ids, media objects, deals, then each imp's bidders. */
import { checkImpBidders } from './imp-bidders.js';
import { interstitialFormats } from './interstitial.js';
import {
  AUDIO_COUNTERS, bannerError, deprecatedSizeField, deprecatedSizeFieldError, playerError, pmpError, VIDEO_COUNTERS,
} from './media.js';
import { normaliseNative } from './native.js';
import { impPath, type ValidationScope } from './scope.js';
import { isJsonObject } from '../../../core/api/index.js';
import { isNonEmptyString, isPresent, type JsonObject } from './values.js';

const MEDIA_TYPES = ['banner', 'video', 'audio', 'native'];

/**
 * Past this many imps, a repeated id is found through a map; below, by looking back over the earlier imps, which
 * allocates nothing and is quick for the handful of imps requests carry.
 */
const MAX_IMPS_SCANNED_FOR_IDS = 16;

export function checkImps(request: JsonObject, scope: ValidationScope): void {
  const imps = request.imp;
  if (!Array.isArray(imps) || imps.length === 0) {
    scope.report.addError('request.imp must contain at least one element.');
    return;
  }
  const firstIndexById = imps.length > MAX_IMPS_SCANNED_FOR_IDS ? new Map<string, number>() : undefined;
  for (let index = 0; index < imps.length; index++) {
    const imp: unknown = imps[index];
    if (!isJsonObject(imp)) {
      scope.report.addError(`${impPath(index)} must be an object`);
      continue;
    }
    scope.report.addError(impIdError(imp.id, index, imps, firstIndexById));
    checkImpContent(imp, index, request.device, scope);
    checkImpBidders(imp, index, scope);
  }
}

function impIdError(
  id: unknown, index: number, imps: unknown[], firstIndexById: Map<string, number> | undefined,
): string | undefined {
  if (isPresent(id) && typeof id !== 'string') return `${impPath(index)}.id must be a string`;
  if (!isNonEmptyString(id)) return `${impPath(index)} missing required field: "id"`;
  const first = firstImpWithId(imps, id, index, firstIndexById);
  if (first === undefined) return undefined;
  return `request.imp[${first}].id and request.imp[${index}].id are both "${id}". Imp IDs must be unique.`;
}

/** The first imp before `index` with this id, if any; registers the id in the map when there is one. */
function firstImpWithId(
  imps: unknown[], id: string, index: number, firstIndexById: Map<string, number> | undefined,
): number | undefined {
  if (firstIndexById === undefined) {
    for (let earlier = 0; earlier < index; earlier++) {
      const imp: unknown = imps[earlier];
      if (isJsonObject(imp) && imp.id === id) return earlier;
    }
    return undefined;
  }
  const first = firstIndexById.get(id);
  if (first === undefined) firstIndexById.set(id, index);
  return first;
}

function checkImpContent(imp: JsonObject, index: number, device: unknown, scope: ValidationScope): void {
  const { report } = scope;
  const deprecatedField = deprecatedSizeField(imp);
  if (deprecatedField !== undefined) {
    report.addError(deprecatedSizeFieldError(impPath(index), deprecatedField, 'Use the "banner.format" array instead.'));
  }
  if (Array.isArray(imp.metric) ? imp.metric.length > 0 : isPresent(imp.metric)) {
    // Wording kept from Prebid Server, whose clients already know it.
    report.addError(`${impPath(index)}.metric is not yet supported by prebid-server. Support may be added in the future`);
  }
  if (!hasMediaType(imp)) {
    report.addError(`${impPath(index)} must contain at least one of "banner", "video", "audio", or "native"`);
  }
  if (isPresent(imp.banner)) checkBanner(imp, index, device, scope);
  if (isPresent(imp.video)) report.addError(playerError(imp.video, index, 'video', VIDEO_COUNTERS));
  if (isPresent(imp.audio)) report.addError(playerError(imp.audio, index, 'audio', AUDIO_COUNTERS));
  if (isPresent(imp.native)) checkNative(imp.native, index, scope);
  report.addError(pmpError(imp.pmp, index));
}

/**
 * One imp as Prebid Server re-checks it after a bidder's first-party data was merged into it (ValidateImp with bidder
 * params and native markup skipped): the first problem, in its order, or undefined. The imp's bidders were checked
 * with the request; first-party data cannot add any (the bidder's `imp.ext` is rebuilt after the merge).
 */
export function impProblemAfterFirstPartyData(imp: JsonObject, index: number): string | undefined {
  if (!isNonEmptyString(imp.id)) return `${impPath(index)} missing required field: "id"`;
  if (Array.isArray(imp.metric) ? imp.metric.length > 0 : isPresent(imp.metric)) {
    return `${impPath(index)}.metric is not yet supported by prebid-server. Support may be added in the future`;
  }
  if (!hasMediaType(imp)) return `${impPath(index)} must contain at least one of "banner", "video", "audio", or "native"`;
  return (isPresent(imp.banner) ? bannerError(imp.banner, index, imp.instl === 1) : undefined)
    ?? (isPresent(imp.video) ? playerError(imp.video, index, 'video', VIDEO_COUNTERS) : undefined)
    ?? (isPresent(imp.audio) ? playerError(imp.audio, index, 'audio', AUDIO_COUNTERS) : undefined)
    ?? pmpError(imp.pmp, index);
}

function hasMediaType(imp: JsonObject): boolean {
  for (const type of MEDIA_TYPES) if (isPresent(imp[type])) return true;
  return false;
}

function checkBanner(imp: JsonObject, index: number, device: unknown, scope: ValidationScope): void {
  const interstitial = imp.instl === 1;
  if (!interstitial || scope.interstitial === undefined || !isJsonObject(imp.banner)) {
    scope.report.addError(bannerError(imp.banner, index, interstitial));
    return;
  }
  // Prebid Server sets an interstitial banner's sizes before it validates the imp: the formats it replaces are not
  // judged (a 0x0 one asks for the device's size), the banner with its new ones is.
  const outcome = interstitialFormats(imp.banner, imp.id, device, scope.interstitial);
  if ('error' in outcome) {
    scope.report.addError(outcome.error);
    return;
  }
  const error = bannerError({ ...imp.banner, format: outcome.formats }, index, interstitial);
  scope.report.addError(error);
  if (error !== undefined) return;
  scope.report.addChange((payload) => {
    const banner = payload.request.imp?.[index]?.banner;
    if (isJsonObject(banner)) banner.format = outcome.formats;
  });
}

function checkNative(native: unknown, index: number, scope: ValidationScope): void {
  const outcome = normaliseNative(native, `${impPath(index)}.native`);
  if ('error' in outcome) {
    scope.report.addError(outcome.error);
    return;
  }
  scope.report.addChange((payload) => {
    const target = payload.request.imp?.[index]?.native;
    if (isJsonObject(target)) target.request = outcome.normalisedRequest;
  });
}
