import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
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

  describe('error codes', () => {
    it('reports a request ext Go cannot decode as FailedToUnmarshal (14), and still sends the call', () => {
      const bidder = manifest.create!(testBidderConfig('adf', manifest.info.endpoint!), { logger: { debug() {}, info() {}, warn() {}, error() {} } });
      const request = { id: 'r', imp: [{ id: 'i', banner: {}, ext: { bidder: { mid: '1', priceType: 'net' } } }], ext: { prebid: 'x' } } as BidRequest;
      const { requests, errors } = bidder.makeRequests(request, testRequestInfo('adf'));
      expect(requests).to.have.length(1);
      expect(errors?.map((e) => e.code)).to.deep.equal([14]);
    });

    it('reports a bid without a readable media type as a bad server response (3)', () => {
      const bidder = manifest.create!(testBidderConfig('adf', manifest.info.endpoint!), { logger: { debug() {}, info() {}, warn() {}, error() {} } });
      const sent = { method: 'POST' as const, uri: manifest.info.endpoint!, impIds: ['i'] };
      const body = JSON.stringify({ id: 'r', seatbid: [{ bid: [{ id: 'b', impid: 'i', price: 1, ext: { prebid: { type: 5 } } }] }] });
      const { errors } = bidder.makeBids({ id: 'r', imp: [] }, sent, { status: 200, body, headers: {} });
      expect(errors?.map((e) => e.code)).to.deep.equal([3]);
    });
  });
});
