import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import sovrn from '../index.js';
import { goParseFloat, queryUnescape } from '../sovrn.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
/** Our fixtures are written for the same test endpoint as Prebid Server's. */
const host = readTestHost('sovrn');

describe('sovrn adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(sovrn, fixturesDir, host)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(sovrn, {
    valid: [
      ['a tagid', { tagid: '315045' }],
      ['the deprecated tagId', { tagId: '315045' }],
      ['a numeric floor', { tagid: '1', bidfloor: 0.5 }],
      ['a floor as text', { tagid: '1', bidfloor: '0.5' }],
      ['an ad unit code', { tagid: '1', adunitcode: 'div-1' }],
    ],
    invalid: [
      ['no tag id', { bidfloor: 1 }],
      ['both spellings of the tag id', { tagid: '1', tagId: '2' }],
      ['a numeric tagid', { tagid: 315045 }],
      ['a boolean floor', { tagid: '1', bidfloor: true }],
      ['a numeric ad unit code', { tagid: '1', adunitcode: 5 }],
      ['a non-object', '315045'],
    ],
  });

  describe('queryUnescape', () => {
    it('decodes as Go url.QueryUnescape does', () => {
      expect(queryUnescape('a+b%20c%2Bd')).to.equal('a b c+d');
      expect(queryUnescape('%E2%82%AC5')).to.equal('€5');
      expect(queryUnescape('plain <b>text</b>')).to.equal('plain <b>text</b>');
      expect(queryUnescape('')).to.equal('');
    });

    it('refuses a percent sign without two hex digits', () => {
      for (const bad of ['100%', '%4', '%zz', 'a%g1b']) expect(queryUnescape(bad), bad).to.equal(undefined);
    });
  });

  describe('goParseFloat', () => {
    it('reads Go float literals: decimal, hexadecimal with its p exponent, underscores between digits, infinities', () => {
      const read: Array<[string, number]> = [['1.5', 1.5], ['.5', 0.5], ['5.', 5], ['+2e3', 2000], ['1_000.5', 1000.5], ['1e1_0', 1e10], ['0x1p-2', 0.25], ['0X1.8P1', 3], ['-0x_10p0', -16], ['Inf', Infinity], ['-infinity', -Infinity]];
      for (const [text, value] of read) expect(goParseFloat(text), text).to.equal(value);
      expect(goParseFloat('NaN')).to.be.NaN;
    });

    it('refuses what ParseFloat refuses, out-of-range values included', () => {
      for (const text of ['', '.', '_1', '1_', '1__0', '1._5', '0x10', '0x1e5', '0xp1', '1e', '1e_5', ' 1', '+nan', 'infin', '1e400', '0x1p2000', '0b101']) {
        expect(goParseFloat(text), text).to.equal(undefined);
      }
    });
  });
});
