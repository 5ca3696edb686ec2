/** Checks of an imp's media objects (banner and its formats, video, audio) and of its deals. */
import {
  firstError, isNonEmptyString, isObject, isPresent, kindError, nonNegativeIntegerFieldsError, type JsonObject,
} from './values.js';

/** Banner size ranges that OpenRTB 2.5 replaced by `format`; the specification rejects them (section 4.1). */
const DEPRECATED_SIZE_FIELDS = ['wmin', 'wmax', 'hmin', 'hmax'];

export function deprecatedSizeFieldError(object: JsonObject, path: string, fix: string): string | undefined {
  const field = DEPRECATED_SIZE_FIELDS.find((name) => isPresent(object[name]));
  return field === undefined ? undefined : `${path} uses unsupported property: "${field}". ${fix}`;
}

const isPositive = (value: unknown): boolean => typeof value === 'number' && value > 0;

/** An interstitial banner may leave its sizes out: the ad takes the screen. */
export function bannerError(banner: unknown, path: string, interstitial: boolean): string | undefined {
  if (!isObject(banner)) return `${path} must be an object`;
  return deprecatedSizeFieldError(banner, path, 'Use the "format" array instead.')
    ?? nonNegativeIntegerFieldsError(banner, ['w', 'h'], path)
    ?? kindError(banner.format, 'array', `${path}.format`)
    ?? missingSizesError(banner, path, interstitial)
    ?? formatsError(banner.format, `${path}.format`);
}

function missingSizesError(banner: JsonObject, path: string, interstitial: boolean): string | undefined {
  const hasRootSize = isPositive(banner.w) && isPositive(banner.h);
  const hasFormats = Array.isArray(banner.format) && banner.format.length > 0;
  if (hasRootSize || hasFormats || interstitial) return undefined;
  return `${path} has no sizes. Define "w" and "h", or include "format" elements.`;
}

function formatsError(formats: unknown, path: string): string | undefined {
  if (!Array.isArray(formats)) return undefined;
  return firstError(formats.map((format: unknown, index) => formatError(format, `${path}[${index}]`)));
}

/** A format is a fixed size `{w, h}` or a flexible one `{wmin, wratio, hratio}`, never both. */
function formatError(format: unknown, path: string): string | undefined {
  if (!isObject(format)) return `${path} must be an object`;
  const negative = nonNegativeIntegerFieldsError(format, ['w', 'h', 'wmin', 'wratio', 'hratio'], path);
  if (negative !== undefined) return negative;
  const usesSize = isPositive(format.w) || isPositive(format.h);
  const usesRatio = isPositive(format.wmin) || isPositive(format.wratio) || isPositive(format.hratio);
  // These sentences are the ones Prebid Server clients know, path spelling included.
  const subject = path.replace(/^request\./, 'Request ');
  if (usesSize && usesRatio) {
    return `${subject} should define *either* {w, h} *or* {wmin, wratio, hratio}, but not both. `
      + 'If both are valid, send two "format" objects in the request.';
  }
  if (!usesSize && !usesRatio) {
    return `${subject} should define *either* {w, h} (for static size requirements) *or* {wmin, wratio, hratio} `
      + '(for flexible sizes) to be non-zero.';
  }
  if (usesSize && !(isPositive(format.w) && isPositive(format.h))) {
    return `${subject} must define non-zero "h" and "w" properties.`;
  }
  if (usesRatio && !(isPositive(format.wmin) && isPositive(format.wratio) && isPositive(format.hratio))) {
    return `${subject} must define non-zero "wmin", "wratio", and "hratio" properties.`;
  }
  return undefined;
}

export const VIDEO_COUNTERS = ['w', 'h', 'minduration', 'maxduration', 'minbitrate', 'maxbitrate'];
export const AUDIO_COUNTERS = ['minduration', 'maxduration', 'sequence', 'maxseq', 'minbitrate', 'maxbitrate'];

/** Video and audio share their shape: a non-empty `mimes` list and non-negative counters. */
export function playerError(player: unknown, path: string, counters: readonly string[]): string | undefined {
  if (!isObject(player)) return `${path} must be an object`;
  const mimes = player.mimes;
  if (!Array.isArray(mimes) || mimes.length === 0) return `${path}.mimes must contain at least one supported MIME type`;
  if (!mimes.every(isNonEmptyString)) return `${path}.mimes must contain only MIME type strings`;
  return nonNegativeIntegerFieldsError(player, counters, path);
}

export function pmpError(pmp: unknown, path: string): string | undefined {
  if (!isPresent(pmp)) return undefined;
  if (!isObject(pmp)) return `${path} must be an object`;
  const deals = pmp.deals;
  if (!isPresent(deals)) return undefined;
  if (!Array.isArray(deals)) return `${path}.deals must be an array`;
  return firstError(deals.map((deal: unknown, index) =>
    isObject(deal) && isNonEmptyString(deal.id) ? undefined : `${path}.deals[${index}] missing required field: "id"`));
}
