import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import sovrn from '../index.js';
import { queryUnescape } from '../sovrn.js';

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
});
