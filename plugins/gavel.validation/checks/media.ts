/**
 * Checks of an imp's media objects (banner and its formats, video, audio) and of its deals. They know the imp by its
 * index and spell paths only for a message (see impPath).
 */
import { impPath } from './scope.js';
import { isJsonObject } from '../../../core/api/index.js';
import { firstNonNegativeIntegerViolation, isNonEmptyString, isPresent, nonNegativeIntegerError, type JsonObject } from './values.js';

/** Banner size ranges that OpenRTB 2.5 replaced by `format`; the specification rejects them (section 4.1). */
const DEPRECATED_SIZE_FIELDS = ['wmin', 'wmax', 'hmin', 'hmax'];
const BANNER_SIZE_FIELDS = ['w', 'h'];
const FORMAT_SIZE_FIELDS = ['w', 'h', 'wmin', 'wratio', 'hratio'];

/** The first deprecated size field `object` holds, if any (see deprecatedSizeFieldError). */
export function deprecatedSizeField(object: JsonObject): string | undefined {
  for (const field of DEPRECATED_SIZE_FIELDS) if (isPresent(object[field])) return field;
  return undefined;
}

export function deprecatedSizeFieldError(path: string, field: string, fix: string): string {
  return `${path} uses unsupported property: "${field}". ${fix}`;
}

const isPositive = (value: unknown): boolean => typeof value === 'number' && value > 0;

/** An interstitial banner may leave its sizes out: the ad takes the screen. */
export function bannerError(banner: unknown, impIndex: number, interstitial: boolean): string | undefined {
  if (!isJsonObject(banner)) return `${bannerPath(impIndex)} must be an object`;
  const deprecatedField = deprecatedSizeField(banner);
  if (deprecatedField !== undefined) {
    return deprecatedSizeFieldError(bannerPath(impIndex), deprecatedField, 'Use the "format" array instead.');
  }
  const invalidSize = firstNonNegativeIntegerViolation(banner, BANNER_SIZE_FIELDS);
  if (invalidSize !== undefined) return nonNegativeIntegerError(banner[invalidSize], `${bannerPath(impIndex)}.${invalidSize}`);
  const formats = banner.format;
  if (isPresent(formats) && !Array.isArray(formats)) return `${bannerPath(impIndex)}.format must be an array`;
  const hasRootSize = isPositive(banner.w) && isPositive(banner.h);
  const hasFormats = Array.isArray(formats) && formats.length > 0;
  if (!hasRootSize && !hasFormats && !interstitial) {
    return `${bannerPath(impIndex)} has no sizes. Define "w" and "h", or include "format" elements.`;
  }
  return Array.isArray(formats) ? formatsError(formats, impIndex) : undefined;
}

function bannerPath(impIndex: number): string {
  return `${impPath(impIndex)}.banner`;
}

function formatsError(formats: unknown[], impIndex: number): string | undefined {
  for (let index = 0; index < formats.length; index++) {
    const error = formatError(formats[index], impIndex, index);
    if (error !== undefined) return error;
  }
  return undefined;
}

/** A format is a fixed size `{w, h}` or a flexible one `{wmin, wratio, hratio}`, never both. */
function formatError(format: unknown, impIndex: number, formatIndex: number): string | undefined {
  if (!isJsonObject(format)) return `${formatPath(impIndex, formatIndex)} must be an object`;
  const invalidField = firstNonNegativeIntegerViolation(format, FORMAT_SIZE_FIELDS);
  if (invalidField !== undefined) {
    return nonNegativeIntegerError(format[invalidField], `${formatPath(impIndex, formatIndex)}.${invalidField}`);
  }
  const usesSize = isPositive(format.w) || isPositive(format.h);
  const usesRatio = isPositive(format.wmin) || isPositive(format.wratio) || isPositive(format.hratio);
  if (usesSize && usesRatio) {
    return `${formatSubject(impIndex, formatIndex)} should define *either* {w, h} *or* {wmin, wratio, hratio}, but not both. `
      + 'If both are valid, send two "format" objects in the request.';
  }
  if (!usesSize && !usesRatio) {
    return `${formatSubject(impIndex, formatIndex)} should define *either* {w, h} (for static size requirements) *or* `
      + '{wmin, wratio, hratio} (for flexible sizes) to be non-zero.';
  }
  if (usesSize && !(isPositive(format.w) && isPositive(format.h))) {
    return `${formatSubject(impIndex, formatIndex)} must define non-zero "h" and "w" properties.`;
  }
  if (usesRatio && !(isPositive(format.wmin) && isPositive(format.wratio) && isPositive(format.hratio))) {
    return `${formatSubject(impIndex, formatIndex)} must define non-zero "wmin", "wratio", and "hratio" properties.`;
  }
  return undefined;
}

function formatPath(impIndex: number, formatIndex: number): string {
  return `${bannerPath(impIndex)}.format[${formatIndex}]`;
}

/** The sentences about a format's shape are the ones Prebid Server clients know, path spelling included. */
function formatSubject(impIndex: number, formatIndex: number): string {
  return `Request imp[${impIndex}].banner.format[${formatIndex}]`;
}

export const VIDEO_COUNTERS = ['w', 'h', 'minduration', 'maxduration', 'minbitrate', 'maxbitrate'];
export const AUDIO_COUNTERS = ['minduration', 'maxduration', 'sequence', 'maxseq', 'minbitrate', 'maxbitrate'];

/** Video and audio share their shape: a non-empty `mimes` list and non-negative counters. */
export function playerError(
  player: unknown, impIndex: number, media: 'video' | 'audio', counters: readonly string[],
): string | undefined {
  if (!isJsonObject(player)) return `${impPath(impIndex)}.${media} must be an object`;
  const mimes = player.mimes;
  if (!Array.isArray(mimes) || mimes.length === 0) {
    return `${impPath(impIndex)}.${media}.mimes must contain at least one supported MIME type`;
  }
  for (const mime of mimes) {
    if (!isNonEmptyString(mime)) return `${impPath(impIndex)}.${media}.mimes must contain only MIME type strings`;
  }
  const invalidCounter = firstNonNegativeIntegerViolation(player, counters);
  if (invalidCounter === undefined) return undefined;
  return nonNegativeIntegerError(player[invalidCounter], `${impPath(impIndex)}.${media}.${invalidCounter}`);
}

export function pmpError(pmp: unknown, impIndex: number): string | undefined {
  if (!isPresent(pmp)) return undefined;
  if (!isJsonObject(pmp)) return `${impPath(impIndex)}.pmp must be an object`;
  const deals = pmp.deals;
  if (!isPresent(deals)) return undefined;
  if (!Array.isArray(deals)) return `${impPath(impIndex)}.pmp.deals must be an array`;
  for (let index = 0; index < deals.length; index++) {
    const deal: unknown = deals[index];
    if (!isJsonObject(deal) || !isNonEmptyString(deal.id)) return `${impPath(impIndex)}.pmp.deals[${index}] missing required field: "id"`;
  }
  return undefined;
}
