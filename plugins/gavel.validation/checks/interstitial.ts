/**
 * Interstitial imps (`instl` = 1) of a request that sets `device.ext.<ns>.interstitial` get their banner sizes
 * from the service: the first 10 of Prebid Server's interstitial sizes (in its order) between the minimum share and
 * the largest size the ad may take.
 */
import type { Format } from '../../../core/api/index.js';
import type { InterstitialSettings } from './scope.js';
import { isJsonObject } from '../../../core/api/index.js';
import { type JsonObject } from './values.js';
import { INTERSTITIAL_SIZES } from './interstitial-sizes.js';

/** Prebid Server stops at this many sizes. */
const MAX_INTERSTITIAL_FORMATS = 10;

type Size = { w: number; h: number };

/** A size as Prebid Server's int64 fields hold it: a negative one too (its sizes are set before they are validated). */
const sizeOf = (object: unknown): Size => {
  const read = (value: unknown): number => (typeof value === 'number' ? Math.trunc(value) : 0);
  return isJsonObject(object) ? { w: read(object.w), h: read(object.h) } : { w: 0, h: 0 };
};

/**
 * The largest size comes from the banner's first format, else (when that is missing or 1x1) from the device screen.
 * The message on failure is Prebid Server's, which its clients know.
 */
export function interstitialFormats(
  banner: JsonObject, impId: unknown, device: unknown, settings: InterstitialSettings,
): { formats: Format[] } | { error: string } {
  const first = Array.isArray(banner.format) ? sizeOf(banner.format[0]) : { w: 0, h: 0 };
  // 1x1 (or no size at all) asks for the device's screen size.
  const max = first.w < 2 && first.h < 2 ? sizeOf(device) : first;
  // Go's integer division, which truncates toward zero.
  const min = {
    w: Math.trunc((max.w * settings.minWidthPercent) / 100),
    h: Math.trunc((max.h * settings.minHeightPercent) / 100),
  };
  const formats = INTERSTITIAL_SIZES
    .filter(([w, h]) => w >= min.w && w <= max.w && h >= min.h && h <= max.h)
    .slice(0, MAX_INTERSTITIAL_FORMATS)
    .map(([w, h]) => ({ w, h }));
  if (formats.length > 0) return { formats };
  return {
    error: `Unable to set interstitial size list for Imp id=${String(impId)} `
      + `(No valid sizes between ${min.w}x${min.h} and ${max.w}x${max.h})`,
  };
}
