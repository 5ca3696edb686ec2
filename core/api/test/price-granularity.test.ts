import { expect } from 'chai';
import {
  DEFAULT_PRICE_GRANULARITY,
  exactPriceBucket,
  LEGACY_PRICE_GRANULARITIES,
  parsePriceGranularity,
  priceBucket,
  type PriceGranularity,
} from '../price-granularity.js';

const { low, med, medium, high, auto, dense } = LEGACY_PRICE_GRANULARITIES;

function parsed(value: unknown): PriceGranularity {
  const result = parsePriceGranularity(value);
  if ('error' in result) throw new Error(result.error);
  return result.granularity;
}

function parseError(value: unknown): string {
  const result = parsePriceGranularity(value);
  if (!('error' in result)) throw new Error(`expected an error for ${JSON.stringify(value)}`);
  return result.error;
}

/** Ranges in whole cents: [max, increment]. An oracle independent of the code under test: integers only. */
const LEGACY_IN_CENTS: Record<string, Array<[number, number]>> = {
  low: [[500, 50]],
  med: [[2000, 10]],
  high: [[2000, 1]],
  auto: [[500, 5], [1000, 10], [2000, 50]],
  dense: [[300, 1], [800, 5], [2000, 50]],
};

function expectedBucketInCents(cents: number, ranges: Array<[number, number]>): number {
  let min = 0;
  for (const [max, increment] of ranges) {
    if (cents <= max) return min + Math.floor((cents - min) / increment) * increment;
    min = max;
  }
  return ranges[ranges.length - 1][0];
}

function centsText(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

describe('price granularity', () => {
  describe('the examples of the reference behaviour', () => {
    it('buckets 1.87 as 1.80 (med), 1.85 (auto), 1.87 (dense), 1.50 (low)', () => {
      expect(priceBucket(1.87, med)).to.equal('1.80');
      expect(priceBucket(1.87, auto)).to.equal('1.85');
      expect(priceBucket(1.87, dense)).to.equal('1.87');
      expect(priceBucket(1.87, low)).to.equal('1.50');
      expect(priceBucket(1.87, high)).to.equal('1.87');
    });
  });

  describe('legacy granularities', () => {
    it('defines low, med/medium, high, auto and dense with precision 2', () => {
      expect(low).to.deep.equal({ precision: 2, ranges: [{ max: 5, increment: 0.5 }] });
      expect(med).to.deep.equal({ precision: 2, ranges: [{ max: 20, increment: 0.1 }] });
      expect(medium).to.equal(med);
      expect(high).to.deep.equal({ precision: 2, ranges: [{ max: 20, increment: 0.01 }] });
      expect(auto.ranges).to.deep.equal([{ max: 5, increment: 0.05 }, { max: 10, increment: 0.1 }, { max: 20, increment: 0.5 }]);
      expect(dense.ranges).to.deep.equal([{ max: 3, increment: 0.01 }, { max: 8, increment: 0.05 }, { max: 20, increment: 0.5 }]);
    });

    for (const [name, ranges] of Object.entries(LEGACY_IN_CENTS)) {
      it(`${name}: every whole-cent price from 0.00 to 25.00 lands in the integer-arithmetic bucket`, () => {
        const granularity = LEGACY_PRICE_GRANULARITIES[name];
        for (let cents = 0; cents <= 2500; cents++) {
          expect(priceBucket(cents / 100, granularity), `${cents / 100}`).to.equal(
            centsText(expectedBucketInCents(cents, ranges)),
          );
        }
      });

      it(`${name}: prices with extra decimals are rounded down, never up`, () => {
        const granularity = LEGACY_PRICE_GRANULARITIES[name];
        // Tenths of a cent: 1.879 is still 1.87 before bucketing.
        for (let milli = 0; milli <= 21000; milli += 7) {
          expect(priceBucket(milli / 1000, granularity), `${milli / 1000}`).to.equal(
            centsText(expectedBucketInCents(Math.floor(milli / 10), ranges)),
          );
        }
      });
    }

    it('puts prices on range edges in the lower range, and the next cent in the next range', () => {
      expect(priceBucket(5, auto)).to.equal('5.00');
      expect(priceBucket(5.01, auto)).to.equal('5.00');
      expect(priceBucket(5.1, auto)).to.equal('5.10');
      expect(priceBucket(10, auto)).to.equal('10.00');
      expect(priceBucket(10.49, auto)).to.equal('10.00');
      expect(priceBucket(10.5, auto)).to.equal('10.50');
      expect(priceBucket(3, dense)).to.equal('3.00');
      expect(priceBucket(3.04, dense)).to.equal('3.00');
      expect(priceBucket(3.05, dense)).to.equal('3.05');
      expect(priceBucket(8.49, dense)).to.equal('8.00');
      expect(priceBucket(4.99, low)).to.equal('4.50');
      expect(priceBucket(5, low)).to.equal('5.00');
    });

    it('puts prices above the last max in the max bucket', () => {
      expect(priceBucket(20.01, med)).to.equal('20.00');
      expect(priceBucket(5.01, low)).to.equal('5.00');
      expect(priceBucket(1000, auto)).to.equal('20.00');
      expect(priceBucket(1e21, dense)).to.equal('20.00');
      expect(priceBucket(Infinity, high)).to.equal('20.00');
    });
  });

  describe('floating point', () => {
    it('never lets binary noise move a price into a lower bucket', () => {
      expect(priceBucket(0.3, med)).to.equal('0.30'); // 0.3 / 0.1 is 2.9999999999999996 in doubles
      expect(priceBucket(0.29, high)).to.equal('0.29'); // 0.29 * 100 is 28.999999999999996
      expect(priceBucket(0.57, high)).to.equal('0.57'); // 0.57 * 100 is 56.99999999999999
      expect(priceBucket(1.15, auto)).to.equal('1.15');
      expect(priceBucket(4.35, auto)).to.equal('4.35');
      expect(priceBucket(0.58 * 0.5, high)).to.equal('0.29');
    });

    it('reads computed prices as the decimals they stand for', () => {
      expect(priceBucket(0.1 + 0.2, med)).to.equal('0.30'); // 0.30000000000000004
      expect(priceBucket(1.1 * 1.1, high)).to.equal('1.21'); // 1.2100000000000002
      expect(priceBucket(3 * 1.01, high)).to.equal('3.03');
    });

    it('never prints float noise', () => {
      for (let cents = 0; cents <= 2000; cents++) {
        expect(priceBucket(cents / 100 + 0.001, high)).to.match(/^\d+\.\d\d$/);
      }
    });
  });

  describe('odd prices', () => {
    it('buckets 0, negative, NaN and missing prices as 0', () => {
      expect(priceBucket(0, med)).to.equal('0.00');
      expect(priceBucket(-3, med)).to.equal('0.00');
      expect(priceBucket(Number.NaN, med)).to.equal('0.00');
      expect(priceBucket(undefined as unknown as number, med)).to.equal('0.00');
      expect(priceBucket(-Infinity, med)).to.equal('0.00');
    });

    it('buckets tiny prices as 0 and handles exponent notation', () => {
      expect(priceBucket(1e-7, high)).to.equal('0.00');
      expect(priceBucket(0.009999, high)).to.equal('0.00');
      expect(priceBucket(1.5e1, med)).to.equal('15.00');
    });
  });

  describe('custom granularities', () => {
    it('uses the given precision', () => {
      const whole = parsed({ precision: 0, ranges: [{ max: 10, increment: 1 }] });
      expect(priceBucket(3.7, whole)).to.equal('3');
      expect(priceBucket(12, whole)).to.equal('10');
      const fine = parsed({ precision: 3, ranges: [{ max: 5, increment: 0.001 }] });
      expect(priceBucket(1.2345, fine)).to.equal('1.234');
      expect(priceBucket(0.001, fine)).to.equal('0.001');
      const coarse = parsed({ precision: 1, ranges: [{ max: 50, increment: 5 }] });
      expect(priceBucket(23.9, coarse)).to.equal('20.0');
    });

    it('defaults precision to 2', () => {
      const granularity = parsed({ ranges: [{ max: 20, increment: 0.1 }] });
      expect(granularity.precision).to.equal(2);
      expect(priceBucket(2, granularity)).to.equal('2.00');
    });

    it('starts each range at the previous max, whatever the increments', () => {
      const steps = parsed({ precision: 2, ranges: [{ max: 1, increment: 0.3 }, { max: 5, increment: 0.7 }] });
      expect(priceBucket(0.95, steps)).to.equal('0.90');
      // On the max of one range and the start of the next: the next, as Prebid Server's last matching range wins.
      expect(priceBucket(1, steps)).to.equal('1.00');
      expect(priceBucket(1.69, steps)).to.equal('1.00');
      expect(priceBucket(1.7, steps)).to.equal('1.70');
      expect(priceBucket(2.5, steps)).to.equal('2.40');
      expect(priceBucket(4.99, steps)).to.equal('4.50');
      expect(priceBucket(9, steps)).to.equal('5.00');
    });

    it('accepts the Prebid.js form with "min": a min equal to the previous max changes nothing', () => {
      const granularity = parsed({
        precision: 2,
        ranges: [{ min: 0, max: 5, increment: 0.25 }, { min: 5, max: 10, increment: 1 }],
      });
      expect(granularity.ranges).to.deep.equal([{ max: 5, increment: 0.25 }, { max: 10, increment: 1 }]);
      expect(priceBucket(4.8, granularity)).to.equal('4.75');
      expect(priceBucket(7.5, granularity)).to.equal('7.00');
    });

    it('counts increments from an explicit min above the previous max, as Prebid Server does', () => {
      const granularity = parsed({ precision: 4, ranges: [{ min: 10, max: 30, increment: 1.5 }] });
      expect(priceBucket(18, granularity)).to.equal('17.5000');
      expect(priceBucket(10, granularity)).to.equal('10.0000');
      // Below the min, the bucket under it: a bucket never exceeds the price.
      expect(priceBucket(9.99, granularity)).to.equal('0.0000');
      const gap = parsed({ precision: 2, ranges: [{ max: 5, increment: 1 }, { min: 8, max: 20, increment: 0.5 }] });
      expect(priceBucket(6.5, gap)).to.equal('5.00');
      expect(priceBucket(8.7, gap)).to.equal('8.50');
    });

    it('ignores a min below the previous max, at or above its own max, or not a number: the range starts at the previous max', () => {
      // Prebid Server's request defaults set every range's min to the previous max; it refuses none of these.
      const overlapping = parsed({ ranges: [{ max: 5, increment: 1 }, { min: 4, max: 10, increment: 1 }] });
      expect(overlapping.ranges).to.deep.equal([{ max: 5, increment: 1 }, { max: 10, increment: 1 }]);
      expect(priceBucket(5.5, overlapping)).to.equal('5.00');
      expect(parsed({ ranges: [{ min: 5, max: 5, increment: 1 }] }).ranges).to.deep.equal([{ max: 5, increment: 1 }]);
      expect(parsed({ ranges: [{ min: '1', max: 5, increment: 1 }] }).ranges).to.deep.equal([{ max: 5, increment: 1 }]);
    });

    it('puts a price on a boundary in the next range, explicit min or not', () => {
      const withMin = parsed({ precision: 3, ranges: [{ min: 0, max: 5, increment: 0.3 }, { min: 5, max: 12, increment: 2 }] });
      expect(priceBucket(5, withMin)).to.equal('5.000');
      expect(priceBucket(4.99, withMin)).to.equal('4.800');
      expect(priceBucket(12, withMin)).to.equal('11.000');
      // A gap after the max: the price stays in its range.
      const gap = parsed({ precision: 2, ranges: [{ max: 5, increment: 0.3 }, { min: 8, max: 20, increment: 0.5 }] });
      expect(priceBucket(5, gap)).to.equal('4.80');
      expect(exactPriceBucket(5, gap)).to.equal('4.80');
      expect(exactPriceBucket(5, withMin)).to.equal('5.000');
    });

    it('rounds half up when the increment is finer than the precision', () => {
      const granularity = parsed({ precision: 2, ranges: [{ max: 5, increment: 0.005 }] });
      expect(priceBucket(1.237, granularity)).to.equal('1.24');
      expect(priceBucket(1.234, granularity)).to.equal('1.23');
    });

    it('handles prices and steps far from cents exactly', () => {
      const granularity = parsed({ precision: 6, ranges: [{ max: 1000000, increment: 0.000001 }] });
      expect(priceBucket(123456.654321, granularity)).to.equal('123456.654321');
      const big = parsed({ precision: 2, ranges: [{ max: 1e12, increment: 1000 }] });
      expect(priceBucket(123456789.99, big)).to.equal('123456000.00');
    });
  });

  describe('parsePriceGranularity', () => {
    it('gives med when no granularity is named', () => {
      expect(parsed(undefined)).to.equal(DEFAULT_PRICE_GRANULARITY);
      expect(parsed(null)).to.equal(med);
    });

    it('knows every legacy name', () => {
      for (const name of ['low', 'med', 'medium', 'high', 'auto', 'dense']) {
        expect(parsed(name)).to.equal(LEGACY_PRICE_GRANULARITIES[name]);
      }
    });

    it('refuses unknown names, inherited property names included', () => {
      expect(parseError('ultra')).to.contain('"ultra"');
      expect(parseError('toString')).to.contain('unknown price granularity');
      expect(parseError('MED')).to.contain('unknown price granularity');
    });

    it('refuses a value that is neither a name nor an object', () => {
      expect(parseError(5)).to.contain('must be a name');
      expect(parseError([{ max: 5, increment: 1 }])).to.contain('must be a name');
    });

    it('refuses a negative, fractional or too large precision', () => {
      for (const precision of [-1, 1.5, 16, '2']) {
        expect(parseError({ precision, ranges: [{ max: 5, increment: 1 }] })).to.contain('precision');
      }
    });

    it('refuses missing or empty ranges', () => {
      expect(parseError({ precision: 2 })).to.contain('ranges');
      expect(parseError({ precision: 2, ranges: [] })).to.contain('ranges');
    });

    it('refuses ranges not increasing by max', () => {
      expect(parseError({ ranges: [{ max: 5, increment: 1 }, { max: 5, increment: 1 }] })).to.contain('increasing');
      expect(parseError({ ranges: [{ max: 10, increment: 1 }, { max: 5, increment: 1 }] })).to.contain('increasing');
      expect(parseError({ ranges: [{ max: 0, increment: 1 }] })).to.contain('increasing');
    });

    it('refuses an increment that is not positive, or a max that is not a number', () => {
      expect(parseError({ ranges: [{ max: 5, increment: 0 }] })).to.contain('ranges[0].increment');
      expect(parseError({ ranges: [{ max: 5, increment: 1 }, { max: 6, increment: -1 }] })).to.contain('ranges[1].increment');
      expect(parseError({ ranges: [{ max: 5 }] })).to.contain('increment');
      expect(parseError({ ranges: [{ max: '5', increment: 1 }] })).to.contain('ranges[0].max');
      expect(parseError({ ranges: [null] })).to.contain('ranges[0].max');
    });
  });

  describe('the double-arithmetic path for ordinary prices', () => {
    const granularities: Record<string, PriceGranularity> = {
      ...LEGACY_PRICE_GRANULARITIES,
      precision3: parsed({ precision: 3, ranges: [{ max: 2, increment: 0.005 }, { max: 50, increment: 0.25 }] }),
      finerThanPrecision: parsed({ precision: 1, ranges: [{ max: 10, increment: 0.01 }] }),
      withMin: parsed({ ranges: [{ max: 1, increment: 0.1 }, { min: 1.5, max: 9.99, increment: 0.33 }] }),
      precision0: parsed({ precision: 0, ranges: [{ max: 1000, increment: 7 }] }),
      sixDecimals: parsed({ precision: 6, ranges: [{ max: 3, increment: 0.000013 }] }),
    };
    let seed = 11;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const prices: number[] = [Infinity, -1, NaN, 0, 5e-324, 1e-20, 1e300, 2 ** 53, 0.1 + 0.2, 1 - 1e-16];
    for (let index = 0; index < 3000; index++) {
      const cents = Math.floor(random() * 3000) / 100;
      prices.push(cents, cents * 0.95, cents * 1.01, cents / 3, Math.floor(random() * 3e6) / 1e5, random() * 40);
      // Next to a bucket edge: a few ulps either side, and one unit of the 15th digit either side.
      const edge = Math.floor(random() * 2000) / 100;
      prices.push(edge * (1 + 2.2e-16), edge * (1 - 2.2e-16), edge * (1 + 6e-16), edge * (1 - 6e-16), edge * (1 + 5e-15), edge * (1 - 5e-15), edge * (1 + 3e-14));
    }
    for (const [name, granularity] of Object.entries(granularities)) {
      it(`${name}: answers exactly what the BigInt path answers, for ${prices.length} prices`, () => {
        for (const price of prices) expect(priceBucket(price, granularity), String(price)).to.equal(exactPriceBucket(price, granularity));
      });
    }
  });

  describe('rounding (an account\'s bid_rounding)', () => {
    it('rounds up to the bucket above unless the price is on a bucket, as Prebid Server\'s math.Ceil', () => {
      expect(priceBucket(1.87, med, 'up')).to.equal('1.90');
      expect(priceBucket(1.8, med, 'up')).to.equal('1.80');
      expect(priceBucket(0.3, med, 'up')).to.equal('0.30');
      expect(priceBucket(1.801, med, 'up')).to.equal('1.90');
      expect(priceBucket(1.800000001, med, 'up')).to.equal('1.90');
      expect(priceBucket(4.99, low, 'up')).to.equal('5.00');
      expect(priceBucket(7.2, auto, 'up')).to.equal('7.20');
      expect(priceBucket(12.1, auto, 'up')).to.equal('12.50');
      expect(priceBucket(25, med, 'up')).to.equal('20.00');
      expect(priceBucket(0, med, 'up')).to.equal('0.00');
    });

    it('rounds to the nearer bucket, a price halfway going up, as Prebid Server\'s math.Round', () => {
      expect(priceBucket(1.87, med, 'nearest')).to.equal('1.90');
      expect(priceBucket(1.84, med, 'nearest')).to.equal('1.80');
      expect(priceBucket(1.85, med, 'nearest')).to.equal('1.90');
      expect(priceBucket(1.849, med, 'nearest')).to.equal('1.80');
      expect(priceBucket(1.825, auto, 'nearest')).to.equal('1.85');
      expect(priceBucket(1.8249, auto, 'nearest')).to.equal('1.80');
      expect(priceBucket(2.24, low, 'nearest')).to.equal('2.00');
      expect(priceBucket(2.25, low, 'nearest')).to.equal('2.50');
    });

    it('answers as the exact path does', () => {
      for (const rounding of ['down', 'up', 'nearest'] as const) {
        for (const granularity of [low, med, high, auto, dense]) {
          for (let cents = 0; cents <= 2100; cents += 7) {
            const price = cents / 100 + 0.003;
            expect(priceBucket(price, granularity, rounding), `${price} ${rounding}`).to.equal(exactPriceBucket(price, granularity, rounding));
            expect(priceBucket(cents / 100, granularity, rounding)).to.equal(exactPriceBucket(cents / 100, granularity, rounding));
          }
        }
      }
    });
  });
});

