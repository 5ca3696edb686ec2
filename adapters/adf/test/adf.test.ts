import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));

describe('adf adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['a master tag id as a string', { mid: '828782' }],
      ['a master tag id as an integer', { mid: 828782 }],
      ['an inventory source with a placement name', { inv: 1234, mname: 'placement' }],
      ['a gross price type', { mid: '1', priceType: 'gross' }],
      ['a net price type', { mid: '1', priceType: 'net' }],
      ['an unknown extra field', { mid: '1', other: true }],
    ],
    invalid: [
      ['no placement at all', { priceType: 'net' }],
      ['an inventory source without a name', { inv: 1234 }],
      ['a name without an inventory source', { mname: 'placement' }],
      ['a master tag id with letters', { mid: '12a' }],
      ['a fractional master tag id', { mid: 1.5 }],
      ['an inventory source as a string', { inv: '1234', mname: 'p' }],
      ['an unknown price type', { mid: '1', priceType: 'cpm' }],
      ['a non-object', '828782'],
    ],
  });
});
