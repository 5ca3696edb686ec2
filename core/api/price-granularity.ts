/**
 * Price granularity: how a bid price becomes the price bucket sent to the ad server (`hb_pb`).
 *
 * Self-contained on purpose (it imports nothing): another module that needs buckets (video's `hb_pb_cat_dur`) can
 * copy this file as it is.
 *
 * Arithmetic is exact. Prices, range bounds and increments are turned into whole numbers of the smallest decimal
 * unit any of them uses, so `0.3` in steps of `0.1` is bucket `0.30`, never `0.20` or `0.30000000000000004`:
 * in doubles where they settle the price beyond doubt (nearly always), else in BigInt.
 */

/**
 * One range of a granularity. Its minimum is the `min` the request gives (Prebid.js sends one), else the previous
 * range's max (0 for the first). Buckets count increments from the minimum.
 */
export interface PriceRange {
  min?: number;
  max: number;
  increment: number;
}

export interface PriceGranularity {
  /** Decimal places of the bucket string. */
  precision: number;
  /** In order of increasing `max`. */
  ranges: PriceRange[];
}

const DEFAULT_PRECISION = 2;
/** Beyond 15 decimals a double no longer carries the digits, so a bucket would print noise. */
const MAX_PRECISION = 15;

const legacy = (...ranges: Array<[max: number, increment: number]>): PriceGranularity =>
  Object.freeze({
    precision: DEFAULT_PRECISION,
    ranges: Object.freeze(ranges.map(([max, increment]) => Object.freeze({ max, increment }))) as PriceRange[],
  });
const MEDIUM = legacy([20, 0.1]);

/** The legacy names (reference behaviour, section 4). */
export const LEGACY_PRICE_GRANULARITIES: Readonly<Record<string, PriceGranularity>> = Object.freeze({
  low: legacy([5, 0.5]),
  med: MEDIUM,
  medium: MEDIUM,
  high: legacy([20, 0.01]),
  auto: legacy([5, 0.05], [10, 0.1], [20, 0.5]),
  dense: legacy([3, 0.01], [8, 0.05], [20, 0.5]),
});

/** Used when targeting is requested without a granularity. */
export const DEFAULT_PRICE_GRANULARITY: PriceGranularity = MEDIUM;

/**
 * Which way a price between two buckets goes: `down` to the bucket below (the default), `up` to the bucket above,
 * `nearest` to the nearer one (a price halfway goes up), as an account's `bid_rounding` asks (`true` is `nearest`;
 * `timesplit` is `down` or `up` drawn per bid by the caller).
 */
export type PriceRounding = 'down' | 'up' | 'nearest';

export type GranularityParseResult = { granularity: PriceGranularity } | { error: string };

/**
 * Reads `targeting.pricegranularity`: absent means the default (`med`); a legacy name; or
 * `{precision?, ranges: [{max, increment}]}`. A range's `min` (the Prebid.js form) is where its increments start when
 * it lies from the previous range's max to below its own max; any other `min` is ignored, the range then starting at
 * the previous max, as Prebid Server's request defaults set it. Errors say what to fix, without a path (the caller
 * knows where the value came from).
 */
export function parsePriceGranularity(value: unknown): GranularityParseResult {
  if (value === undefined || value === null) return { granularity: DEFAULT_PRICE_GRANULARITY };
  if (typeof value === 'string') {
    const named = Object.hasOwn(LEGACY_PRICE_GRANULARITIES, value) ? LEGACY_PRICE_GRANULARITIES[value] : undefined;
    if (named) return { granularity: named };
    const names = Object.keys(LEGACY_PRICE_GRANULARITIES).join(', ');
    return { error: `unknown price granularity "${value}"; use one of ${names} or {"precision": 2, "ranges": [...]}` };
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { error: 'price granularity must be a name such as "med" or an object {"precision": 2, "ranges": [...]}' };
  }
  return parseCustomGranularity(value as Record<string, unknown>);
}

function parseCustomGranularity(value: Record<string, unknown>): GranularityParseResult {
  const precision = value.precision ?? DEFAULT_PRECISION;
  if (typeof precision !== 'number' || !Number.isInteger(precision) || precision < 0 || precision > MAX_PRECISION) {
    return { error: `price granularity precision must be a whole number from 0 to ${MAX_PRECISION}` };
  }
  if (!Array.isArray(value.ranges) || value.ranges.length === 0) {
    return { error: 'price granularity ranges must be a non-empty array of {"max", "increment"}' };
  }
  const ranges: PriceRange[] = [];
  let previousMax = 0;
  for (const [i, range] of value.ranges.entries()) {
    const { min, max, increment } = (range ?? {}) as { min?: unknown; max?: unknown; increment?: unknown };
    if (typeof max !== 'number' || !Number.isFinite(max)) {
      return { error: `price granularity ranges[${i}].max must be a number` };
    }
    if (max <= previousMax) {
      return { error: 'price granularity ranges must be ordered by increasing "max", each above 0' };
    }
    if (typeof increment !== 'number' || !Number.isFinite(increment) || increment <= 0) {
      return { error: `price granularity ranges[${i}].increment must be a positive number` };
    }
    const startsAbovePrevious = typeof min === 'number' && min > previousMax && min < max;
    ranges.push(startsAbovePrevious ? { min, max, increment } : { max, increment });
    previousMax = max;
  }
  return { granularity: { precision, ranges } };
}

/**
 * The price bucket of `cpm`: in the range with min <= cpm <= max, `min + floor((cpm - min) / increment) * increment`
 * (a price on the max of one range and the start of the next is in the next, as Prebid Server's last matching range
 * wins); above the last max, the last max; in a gap below a range's explicit min, the bucket below it (the previous
 * max, or 0): a bucket never exceeds the price. Printed with `precision` decimals. A cpm that is not a positive
 * number (negative, NaN, missing) is bucket 0.
 * When increments are finer than the precision, the bucket is rounded half up to the precision when printed.
 * `rounding` other than `down` moves a price between two buckets of its range to the bucket above (`up`), or to the
 * nearer one (`nearest`), as Prebid Server's getCpmTarget rounds the number of increments; the bucket above may then
 * exceed the price (and the range's max, as in Prebid Server), prices over the last max still being the last max.
 */
export function priceBucket(cpm: number, granularity: PriceGranularity, rounding: PriceRounding = 'down'): string {
  const scaled = scaledGranularity(granularity);
  const whole = scaled.whole;
  if (whole && cpm > 0) {
    // Rounding up or to the nearest bucket needs the price's digits past the granularity's: the exact path has them.
    const units = wholeUnits(cpm, whole.scale, rounding !== 'down');
    if (units !== undefined) return wholeBucket(units, whole, granularity.precision, rounding);
  }
  return exactPriceBucket(cpm, granularity, rounding);
}

/** Whether a price past a bucket (by half an increment or more, or less) goes to the bucket above. */
function roundsUp(rounding: PriceRounding, pastBucket: boolean, halfwayOrMore: boolean): boolean {
  return pastBucket && (rounding === 'up' || (rounding === 'nearest' && halfwayOrMore));
}

/** The bucket worked out in BigInt throughout: what `priceBucket` answers, for any price, more slowly. */
export function exactPriceBucket(cpm: number, granularity: PriceGranularity, rounding: PriceRounding = 'down'): string {
  const scaled = scaledGranularity(granularity);
  const finite = cpm > 0 && cpm !== Infinity;
  // Rounding down drops the price's digits past the granularity's; rounding up or to the nearest bucket reads them all.
  const extra = finite && rounding !== 'down' ? Math.max(0, decimalPlaces(cpm) - scaled.decimals) : 0;
  const factor = 10n ** BigInt(extra);
  const decimals = scaled.decimals + extra;
  const lastMax = scaled.lastMax * factor;
  const price = finite ? toUnits(cpm, decimals) : cpm > 0 ? lastMax : 0n;
  let previousMax = 0n;
  const ranges = scaled.ranges;
  for (let i = 0; i < ranges.length; i++) {
    const min = ranges[i]!.min * factor;
    const max = ranges[i]!.max * factor;
    const increment = ranges[i]!.increment * factor;
    const nextMin = ranges[i + 1]?.min;
    if (price < max || (price === max && (nextMin === undefined || nextMin * factor !== max))) {
      if (price < min) return formatUnits(previousMax, decimals, granularity.precision);
      const offset = (price - min) % increment;
      const bucket = price - offset + (roundsUp(rounding, offset > 0n, offset * 2n >= increment) ? increment : 0n);
      return formatUnits(bucket, decimals, granularity.precision);
    }
    previousMax = max;
  }
  return formatUnits(lastMax, decimals, granularity.precision);
}

/**
 * Units below this are whole numbers a double holds exactly, and have at most 15 digits, as many as a price is read
 * with (see decimalParts).
 */
const MAX_WHOLE_UNITS = 1e15;

/**
 * The price in units, as toUnits reads it, when plain double arithmetic settles it beyond doubt; undefined when only
 * the exact path can tell. `cpm * scale` is within half an ulp of the true product. Within one ulp of a whole number,
 * the price stands for that number of units (the noise of binary fractions, as 0.29 * 100 = 28.999999999999996):
 * reading the price to 15 significant digits moves it by at least 5e-16 of itself, more than that noise. Farther than
 * 1e-13 of itself from any whole number, reading it to 15 digits (at most 5e-15 of itself) cannot cross one, so the
 * floor is the floor. Between the two, or past MAX_WHOLE_UNITS, the exact path decides; it decides too for a price
 * with digits past the units when `wholeOnly` (the floor would drop them).
 */
function wholeUnits(cpm: number, scale: number, wholeOnly: boolean): number | undefined {
  const product = cpm * scale;
  if (!(product < MAX_WHOLE_UNITS)) return undefined;
  const nearest = Math.round(product);
  const off = Math.abs(product - nearest);
  if (off <= product * 2.2e-16) return nearest;
  if (off >= product * 1e-13 && !wholeOnly) return Math.floor(product);
  return undefined;
}

function wholeBucket(units: number, whole: WholeGranularity, precision: number, rounding: PriceRounding): string {
  let previousMax = 0;
  const ranges = whole.ranges;
  for (let i = 0; i < ranges.length; i++) {
    const { min, max, increment } = ranges[i]!;
    if (units < max || (units === max && ranges[i + 1]?.min !== max)) {
      if (units < min) return formatWholeUnits(previousMax, whole.divisor, precision);
      // Remainders of whole doubles below 2^53 are exact, where a quotient might round up to the next whole number.
      const offset = (units - min) % increment;
      const bucket = units - offset + (roundsUp(rounding, offset > 0, offset * 2 >= increment) ? increment : 0);
      return formatWholeUnits(bucket, whole.divisor, precision);
    }
    previousMax = max;
  }
  return formatWholeUnits(whole.lastMax, whole.divisor, precision);
}

/** formatUnits for whole units held in a double. */
function formatWholeUnits(units: number, divisor: number, precision: number): string {
  let value = units;
  if (divisor > 1) {
    const halfUp = units + Math.floor(divisor / 2);
    value = (halfUp - (halfUp % divisor)) / divisor;
  }
  return printUnits(String(value), precision);
}

/** A granularity with every bound and increment in whole units of 10^-decimals. */
interface ScaledGranularity {
  decimals: number;
  ranges: Array<{ min: bigint; max: bigint; increment: bigint }>;
  lastMax: bigint;
  /** The same in doubles, when every bound is a whole number below MAX_WHOLE_UNITS: no BigInt for ordinary prices. */
  whole?: WholeGranularity;
}

interface WholeGranularity {
  /** 10^decimals. */
  scale: number;
  ranges: Array<{ min: number; max: number; increment: number }>;
  lastMax: number;
  /** 10^(decimals - precision): what printing divides by. */
  divisor: number;
}

// Granularities are few (the legacy ones, plus one per request at most) and immutable once parsed.
const scaledCache = new WeakMap<PriceGranularity, ScaledGranularity>();

function scaledGranularity(granularity: PriceGranularity): ScaledGranularity {
  let scaled = scaledCache.get(granularity);
  if (!scaled) {
    const decimals = Math.max(
      granularity.precision,
      ...granularity.ranges.flatMap(({ min = 0, max, increment }) => [decimalPlaces(min), decimalPlaces(max), decimalPlaces(increment)]),
    );
    let previousMax = 0n;
    const ranges = granularity.ranges.map(({ min, max, increment }) => {
      const range = {
        min: min === undefined ? previousMax : toUnits(min, decimals),
        max: toUnits(max, decimals),
        increment: toUnits(increment, decimals),
      };
      previousMax = range.max;
      return range;
    });
    scaled = { decimals, ranges, lastMax: ranges.length > 0 ? ranges[ranges.length - 1].max : 0n };
    scaled.whole = wholeGranularity(scaled, granularity.precision);
    scaledCache.set(granularity, scaled);
  }
  return scaled;
}

function wholeGranularity(scaled: ScaledGranularity, precision: number): WholeGranularity | undefined {
  const limit = BigInt(MAX_WHOLE_UNITS);
  if (scaled.decimals > 15 || scaled.ranges.some(({ max, increment }) => max >= limit || increment >= limit || increment <= 0n)) return undefined;
  return {
    scale: 10 ** scaled.decimals,
    ranges: scaled.ranges.map(({ min, max, increment }) => ({ min: Number(min), max: Number(max), increment: Number(increment) })),
    lastMax: Number(scaled.lastMax),
    divisor: 10 ** (scaled.decimals - precision),
  };
}

/** A finite non-negative number as its decimal digits and power of ten: 1.87 is 187 x 10^-2. */
function decimalParts(value: number): { digits: bigint; exponent: number } {
  // Rounding to 15 significant digits drops the binary noise of earlier arithmetic (0.1 + 0.2, price x factor)
  // while keeping every digit a price written in JSON can carry.
  const text = Number(value.toPrecision(15)).toString();
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!match) return { digits: 0n, exponent: 0 };
  const [, whole, fraction = '', exponent = '0'] = match;
  return { digits: BigInt(whole + fraction), exponent: Number(exponent) - fraction.length };
}

function decimalPlaces(value: number): number {
  return Math.max(0, -decimalParts(value).exponent);
}

/** `value` in whole units of 10^-decimals, rounded down. */
function toUnits(value: number, decimals: number): bigint {
  const { digits, exponent } = decimalParts(value);
  const shift = exponent + decimals;
  return shift >= 0 ? digits * 10n ** BigInt(shift) : digits / 10n ** BigInt(-shift);
}

/** Prints units of 10^-decimals with `precision` decimals (precision <= decimals), rounding half up. */
function formatUnits(units: bigint, decimals: number, precision: number): string {
  let value = units;
  if (decimals > precision) {
    const divisor = 10n ** BigInt(decimals - precision);
    value = (units + divisor / 2n) / divisor;
  }
  return printUnits(value.toString(), precision);
}

/** A whole number of units of 10^-precision, in decimal digits, printed with `precision` decimals. */
function printUnits(digits: string, precision: number): string {
  if (precision === 0) return digits;
  const text = digits.padStart(precision + 1, '0');
  return `${text.slice(0, -precision)}.${text.slice(-precision)}`;
}
