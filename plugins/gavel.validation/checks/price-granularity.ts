import { isJsonObject } from '../../../core/api/index.js';
import { isPresent, type JsonObject } from './values.js';

/** The legacy granularity names the service still honours. */
const LEGACY_GRANULARITIES: readonly string[] = ['low', 'med', 'medium', 'high', 'auto', 'dense'];

/** Beyond this many decimals a float cannot hold the bucket exactly. */
export const MAX_PRECISION = 15;

/**
 * A granularity is a legacy name or `{precision?, ranges: [{max, increment}, ...]}` with increasing `max`. The paths
 * of its parts are spelled only when there is an error.
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
  if (typeof precision !== 'number' || !Number.isInteger(precision) || precision < 0) {
    return `${granularityPath}.precision must be a non-negative integer. Got ${JSON.stringify(precision)}`;
  }
  return precision > MAX_PRECISION ? `${granularityPath}.precision must be at most ${MAX_PRECISION}. Got ${precision}` : undefined;
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
    return `${granularityPath}.ranges[${index}].max must be a number greater than ${previousMax} `
      + `(ranges are listed in increasing order of "max"). Got ${JSON.stringify(max)}`;
  }
  if (typeof increment !== 'number' || !(increment > 0)) {
    return `${granularityPath}.ranges[${index}].increment must be a positive number. Got ${JSON.stringify(increment)}`;
  }
  return undefined;
}
