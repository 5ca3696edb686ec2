import { isJsonObject } from '../../../core/api/index.js';
import { isPresent, type JsonObject } from './values.js';

/** The legacy granularity names the service still honours. */
const LEGACY_GRANULARITIES: readonly string[] = ['low', 'med', 'medium', 'high', 'auto', 'dense'];

/** Beyond this many decimals a float cannot hold the bucket exactly. */
export const MAX_PRECISION = 15;

/** What Prebid Server's granularity errors start with; ours go on to name the field and the value found. */
const ERROR_PREFIX = 'Price granularity error:';

/**
 * A granularity is a legacy name or `{precision?, ranges: [{max, increment}, ...]}` with increasing `max`. The paths
 * of its parts are spelled only when there is an error. Prebid Server's sentence comes first in each message, so
 * clients matching on it keep working; the field and its value follow.
 */
export function priceGranularityError(granularity: unknown, path: string): string | undefined {
  if (!isPresent(granularity)) return undefined;
  if (typeof granularity === 'string') {
    if (LEGACY_GRANULARITIES.includes(granularity)) return undefined;
    const names = LEGACY_GRANULARITIES.map((name) => `"${name}"`).join(', ');
    return `${path} must be one of ${names}, or an object with "ranges". Got "${granularity}"`;
  }
  if (!isJsonObject(granularity)) return `${path} must be a legacy granularity name or an object with "ranges"`;
  return precisionError(granularity.precision, path) ?? rangesError(granularity.ranges, path);
}

function precisionError(precision: unknown, granularityPath: string): string | undefined {
  if (!isPresent(precision)) return undefined;
  if (typeof precision !== 'number' || !Number.isInteger(precision)) {
    return `${granularityPath}.precision must be a non-negative integer. Got ${JSON.stringify(precision)}`;
  }
  if (precision < 0) return `${ERROR_PREFIX} precision must be non-negative (${granularityPath}.precision is ${precision})`;
  return precision > MAX_PRECISION
    ? `${ERROR_PREFIX} precision of more than ${MAX_PRECISION} significant figures is not supported (${granularityPath}.precision is ${precision})`
    : undefined;
}

/** The first problem among the ranges; each is checked against the `max` of the one before. */
function rangesError(ranges: unknown, granularityPath: string): string | undefined {
  if (!Array.isArray(ranges) || ranges.length === 0) {
    return `${granularityPath}.ranges must be an array of at least one {max, increment}`;
  }
  let previousMax = 0;
  for (let index = 0; index < ranges.length; index++) {
    const range: unknown = ranges[index];
    const error = rangeError(range, granularityPath, index, previousMax);
    if (error !== undefined) return error;
    previousMax = (range as JsonObject).max as number;
  }
  return undefined;
}

function rangeError(range: unknown, granularityPath: string, index: number, previousMax: number): string | undefined {
  if (!isJsonObject(range)) return `${granularityPath}.ranges[${index}] must be an object with "max" and "increment"`;
  const { max, increment } = range;
  if (typeof max !== 'number' || !(max > previousMax)) {
    return `${ERROR_PREFIX} range list must be ordered with increasing "max" (${granularityPath}.ranges[${index}].max is `
      + `${JSON.stringify(max)}; it must be a number greater than ${previousMax})`;
  }
  if (typeof increment !== 'number' || !(increment > 0)) {
    return `${ERROR_PREFIX} increment must be a nonzero positive number (${granularityPath}.ranges[${index}].increment is ${JSON.stringify(increment)})`;
  }
  return undefined;
}
