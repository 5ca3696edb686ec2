import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import openx from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const PLATFORM = '8b1e1a4c-2a1a-4c4e-8a0a-1b2c3d4e5f60';

describe('openx adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(openx, fixturesDir)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(openx, {
    valid: [
      ['a string unit with a delivery domain', { unit: '539439964', delDomain: 'se-demo-d.openx.net' }],
      ['a numeric unit with a platform', { unit: 539439964, platform: PLATFORM }],
      ['an upper-case platform uuid', { unit: '1', platform: PLATFORM.toUpperCase() }],
      ['both domain and platform', { unit: '1', delDomain: 'a.openx.net', platform: PLATFORM }],
      ['a floor as a number', { unit: '1', delDomain: 'a.openx.net', customFloor: 0.5 }],
      ['a floor as a decimal string', { unit: '1', delDomain: 'a.openx.net', customFloor: '0.40' }],
      ['a zero floor', { unit: '1', delDomain: 'a.openx.net', customFloor: 0 }],
      ['custom params', { unit: '1', delDomain: 'a.openx.net', customParams: { foo: 'bar', n: [1] } }],
      ['a two-letter top-level label', { unit: '1', delDomain: 'pub-d.openx.io' }],
    ],
    invalid: [
      ['no unit', { delDomain: 'a.openx.net' }],
      ['neither domain nor platform', { unit: '1' }],
      ['a unit with letters', { unit: '12a', delDomain: 'a.openx.net' }],
      ['an empty unit', { unit: '', delDomain: 'a.openx.net' }],
      ['a negative unit', { unit: -1, delDomain: 'a.openx.net' }],
      ['a boolean unit', { unit: true, delDomain: 'a.openx.net' }],
      ['a domain without a dot', { unit: '1', delDomain: 'openx' }],
      ['a domain with a four-letter ending', { unit: '1', delDomain: 'a.openx.info' }],
      ['a domain with an empty label', { unit: '1', delDomain: 'a..openx.net' }],
      ['a domain with an underscore', { unit: '1', delDomain: 'a_b.openx.net' }],
      ['a domain with a path', { unit: '1', delDomain: 'evil.com/x.net' }],
      ['a platform that is not a uuid', { unit: '1', platform: 'PLATFORM' }],
      ['a negative floor', { unit: '1', delDomain: 'a.openx.net', customFloor: -0.1 }],
      ['a floor string with letters', { unit: '1', delDomain: 'a.openx.net', customFloor: '1.5usd' }],
      ['a floor string ending in a dot', { unit: '1', delDomain: 'a.openx.net', customFloor: '1.' }],
      ['custom params as a string', { unit: '1', delDomain: 'a.openx.net', customParams: 'foo=bar' }],
      ['a non-object', ['unit']],
    ],
  });
});
