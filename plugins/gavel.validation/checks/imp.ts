/** Checks of `request.imp[]`: ids, media objects, deals, then each imp's bidders. */
import { checkImpBidders } from './imp-bidders.js';
import { interstitialFormats } from './interstitial.js';
import { AUDIO_COUNTERS, bannerError, deprecatedSizeFieldError, playerError, pmpError, VIDEO_COUNTERS } from './media.js';
import { normaliseNative } from './native.js';
import type { ValidationScope } from './scope.js';
import { isNonEmptyString, isObject, isPresent, type JsonObject } from './values.js';

const MEDIA_TYPES = ['banner', 'video', 'audio', 'native'];

export function checkImps(request: JsonObject, scope: ValidationScope): void {
  const imps = request.imp;
  if (!Array.isArray(imps) || imps.length === 0) {
    scope.report.addError('request.imp must contain at least one element.');
    return;
  }
  const firstIndexById = new Map<string, number>();
  imps.forEach((imp: unknown, index) => {
    if (!isObject(imp)) {
      scope.report.addError(`request.imp[${index}] must be an object`);
      return;
    }
    scope.report.addError(impIdError(imp.id, index, firstIndexById));
    checkImpContent(imp, index, request.device, scope);
    checkImpBidders(imp, index, scope);
  });
}

function impIdError(id: unknown, index: number, firstIndexById: Map<string, number>): string | undefined {
  if (isPresent(id) && typeof id !== 'string') return `request.imp[${index}].id must be a string`;
  if (!isNonEmptyString(id)) return `request.imp[${index}] missing required field: "id"`;
  const first = firstIndexById.get(id);
  if (first === undefined) {
    firstIndexById.set(id, index);
    return undefined;
  }
  return `request.imp[${first}].id and request.imp[${index}].id are both "${id}". Imp IDs must be unique.`;
}

function checkImpContent(imp: JsonObject, index: number, device: unknown, scope: ValidationScope): void {
  const path = `request.imp[${index}]`;
  const { report } = scope;
  report.addError(deprecatedSizeFieldError(imp, path, 'Use the "banner.format" array instead.'));
  if (Array.isArray(imp.metric) ? imp.metric.length > 0 : isPresent(imp.metric)) {
    // Wording kept from Prebid Server, whose clients already know it.
    report.addError(`${path}.metric is not yet supported by prebid-server. Support may be added in the future`);
  }
  if (!MEDIA_TYPES.some((type) => isPresent(imp[type]))) {
    report.addError(`${path} must contain at least one of "banner", "video", "audio", or "native"`);
  }
  if (isPresent(imp.banner)) checkBanner(imp, index, device, scope);
  if (isPresent(imp.video)) report.addError(playerError(imp.video, `${path}.video`, VIDEO_COUNTERS));
  if (isPresent(imp.audio)) report.addError(playerError(imp.audio, `${path}.audio`, AUDIO_COUNTERS));
  if (isPresent(imp.native)) checkNative(imp.native, index, scope);
  report.addError(pmpError(imp.pmp, `${path}.pmp`));
}

function checkBanner(imp: JsonObject, index: number, device: unknown, scope: ValidationScope): void {
  const path = `request.imp[${index}]`;
  const interstitial = imp.instl === 1;
  const error = bannerError(imp.banner, `${path}.banner`, interstitial);
  scope.report.addError(error);
  if (error !== undefined || !interstitial || scope.interstitial === undefined || !isObject(imp.banner)) return;
  const outcome = interstitialFormats(imp.banner, imp.id, device, scope.interstitial);
  if ('error' in outcome) {
    scope.report.addError(outcome.error);
    return;
  }
  scope.report.addChange((payload) => {
    const banner = payload.request.imp?.[index]?.banner;
    if (isObject(banner)) banner.format = outcome.formats;
  });
}

function checkNative(native: unknown, index: number, scope: ValidationScope): void {
  const outcome = normaliseNative(native, `request.imp[${index}].native`);
  if ('error' in outcome) {
    scope.report.addError(outcome.error);
    return;
  }
  scope.report.addChange((payload) => {
    const target = payload.request.imp?.[index]?.native;
    if (isObject(target)) target.request = outcome.normalisedRequest;
  });
}
