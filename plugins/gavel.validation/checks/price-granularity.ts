import { firstError, isObject, isPresent, type JsonObject } from './values.js';

/** The legacy granularity names the service still honours. */
export const LEGACY_GRANULARITIES: readonly string[] = ['low', 'med', 'medium', 'high', 'auto', 'dense'];

/** Beyond this many decimals a float cannot hold the bucket exactly. */
export const MAX_PRECISION = 15;

/** A granularity is a legacy name or `{precision?, ranges: [{max, increment}, ...]}` with increasing `max`. */
export function priceGranularityError(granularity: unknown, path: string): string | undefined {
  if (!isPresent(granularity)) return undefined;
  if (typeof granularity === 'string') {
    if (LEGACY_GRANULARITIES.includes(granularity)) return undefined;
    const names = LEGACY_GRANULARITIES.map((name) => `"${name}"`).join(', ');
    return `${path} must be one of ${names}, or an object with "ranges". Got "${granularity}"`;
  }
  if (!isObject(granularity)) return `${path} must be a legacy granularity name or an object with "ranges"`;
  return precisionError(granularity.precision, `${path}.precision`) ?? rangesError(granularity.ranges, `${path}.ranges`);
}

function precisionError(precision: unknown, path: string): string | undefined {
  if (!isPresent(precision)) return undefined;
  if (typeof precision !== 'number' || !Number.isInteger(precision) || precision < 0) {
    return `${path} must be a non-negative integer. Got ${JSON.stringify(precision)}`;
  }
  return precision > MAX_PRECISION ? `${path} must be at most ${MAX_PRECISION}. Got ${precision}` : undefined;
}

function rangesError(ranges: unknown, path: string): string | undefined {
  if (!Array.isArray(ranges) || ranges.length === 0) return `${path} must be an array of at least one {max, increment}`;
  let previousMax = 0;
  return firstError(ranges.map((range: unknown, index) => {
    const rangePath = `${path}[${index}]`;
    const error = rangeError(range, rangePath, previousMax);
    if (error === undefined) previousMax = (range as JsonObject).max as number;
    return error;
  }));
}

function rangeError(range: unknown, path: string, previousMax: number): string | undefined {
  if (!isObject(range)) return `${path} must be an object with "max" and "increment"`;
  const { max, increment } = range;
  if (typeof max !== 'number' || !(max > previousMax)) {
    return `${path}.max must be a number greater than ${previousMax} (ranges are listed in increasing order of "max"). Got ${JSON.stringify(max)}`;
  }
  if (typeof increment !== 'number' || !(increment > 0)) {
    return `${path}.increment must be a positive number. Got ${JSON.stringify(increment)}`;
  }
  return undefined;
}
