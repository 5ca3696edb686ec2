import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { Bidder, BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import { formatFloat } from '../gumgum.js';
import gumgum from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function bidder(): Bidder {
  return gumgum.create!(testBidderConfig('gumgum', gumgum.info.endpoint!), { logger: silentLogger });
}

describe('gumgum adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(gumgum, fixturesDir)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(gumgum, {
    valid: [
      ['a zone', { zone: 'dc9d6be1' }],
      ['a publisher id', { pubId: 12345 }],
      ['both, with every option', { zone: 'dc9d6be1', pubId: 1, irisid: 'iris', slot: 15, product: 'skins' }],
    ],
    invalid: [
      ['neither zone nor publisher', { irisid: 'iris' }],
      ['a zone shorter than 8 characters', { zone: 'short' }],
      ['a numeric zone', { zone: 12345678 }],
      ['a fractional publisher id', { pubId: 1.5 }],
      ['a publisher id as text', { pubId: '12' }],
      ['a fractional slot', { zone: 'dc9d6be1', slot: 1.5 }],
      ['a numeric product', { zone: 'dc9d6be1', product: 3 }],
      ['a non-object', 'dc9d6be1'],
    ],
  });

  describe('request building', () => {
    it('leaves the caller request untouched when it rewrites the site publisher', () => {
      const request: BidRequest = {
        id: 'r',
        site: { publisher: { id: 'p' } },
        imp: [{ id: 'i', banner: { format: [{ w: 1, h: 2 }] }, ext: { bidder: { pubId: 9, slot: 1 } } }],
      };
      const before = structuredClone(request);
      const { requests } = bidder().makeRequests(request, testRequestInfo('gumgum'));
      expect(request).to.deep.equal(before);
      expect((requests[0]!.body as BidRequest).site!.publisher).to.deep.equal({ id: '9' });
    });

    it('skips params members named like object builtins, as Go skips members its struct lacks', () => {
      const request: BidRequest = {
        id: 'r',
        site: { page: 'https://p.example' },
        imp: [{ id: 'i', banner: { format: [{ w: 1, h: 2 }] }, ext: { bidder: JSON.parse('{"zone":"dc9d6be1","constructor":5,"__proto__":1,"toString":"x"}') } }],
      };
      const { requests, errors } = bidder().makeRequests(request, testRequestInfo('gumgum'));
      expect(errors ?? []).to.deep.equal([]);
      expect(requests).to.have.length(1);
      expect((requests[0]!.body as BidRequest).site!.id).to.equal('dc9d6be1');
    });
  });

  describe('formatFloat', () => {
    it('writes numbers as Go does with the f format and shortest precision', () => {
      expect(formatFloat(1.25)).to.equal('1.25');
      expect(formatFloat(15)).to.equal('15');
      expect(formatFloat(1e-7)).to.equal('0.0000001');
      expect(formatFloat(1.5e-9)).to.equal('0.0000000015');
      expect(formatFloat(1e21)).to.equal('1000000000000000000000');
      expect(formatFloat(1.234e22)).to.equal('12340000000000000000000');
      expect(formatFloat(-2e-7)).to.equal('-0.0000002');
    });
  });
});
