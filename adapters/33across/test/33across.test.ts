import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { BidRequest, Bidder } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = readTestHost('33across');
const HOSTILE = ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb'];
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function bidder(): Bidder {
  return manifest.create!(testBidderConfig('33across', manifest.info.endpoint!), { logger: silentLogger });
}

function banner(id: string, productId: string, siteId: string): BidRequest['imp'][number] {
  return { id, banner: { w: 300, h: 250 }, ext: { bidder: { productId, siteId } } };
}

describe('33across adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['a product and a site', { productId: 'inview', siteId: 's' }],
      ['a product and a zone', { productId: 'siab', zoneId: 'z' }],
      ['all three', { productId: 'instream', siteId: 's', zoneId: 'z' }],
      ['an unknown key', { productId: 'inview', siteId: 's', note: 1 }],
    ],
    invalid: [
      ['no product', { siteId: 's', zoneId: 'z' }],
      ['only a product', { productId: 'inview' }],
      ['a numeric site', { productId: 'inview', siteId: 5 }],
      ['a numeric zone', { productId: 'inview', zoneId: 5 }],
      ['a numeric product', { productId: 1, siteId: 's' }],
      ['a non-object', 'inview'],
    ],
  });

  describe('endpoint', () => {
    it('sends every call to the configured endpoint, whatever the params say', () => {
      for (const value of HOSTILE) {
        const request: BidRequest = { id: 'r', imp: [banner('i', value, value)], site: { page: 'https://p.example/' } };
        const { requests } = bidder().makeRequests(request, testRequestInfo('33across'));
        expect(requests.map((r) => r.uri), value).to.deep.equal(['https://ssc.33across.com/api/v1/s2s']);
      }
    });
  });

  describe('grouping', () => {
    it('groups imps by product and zone written one after the other, as Prebid Server does', () => {
      const request: BidRequest = { id: 'r', imp: [banner('a', 'ab', 'c'), banner('b', 'a', 'bc'), banner('c', 'ab', 'd')], site: { page: 'https://p.example/' } };
      const { requests } = bidder().makeRequests(request, testRequestInfo('33across'));
      expect(requests.map((r) => r.impIds)).to.deep.equal([['a', 'b'], ['c']]);
    });
  });

  describe('robustness', () => {
    it('answers odd bodies without throwing', () => {
      const sent = { method: 'POST' as const, uri: 'https://ssc.33across.com/api/v1/s2s', impIds: ['i'] };
      for (const body of ['null', '[]', '{"seatbid": {}}', '{"seatbid": [{"bid": [null, 3]}]}']) {
        expect(bidder().makeBids({ id: 'r', imp: [] }, sent, { status: 200, body, headers: {} }).bids, body).to.deep.equal([]);
      }
    });

    it('reports params of the wrong shape', () => {
      const request = { id: 'r', imp: [{ id: 'i', banner: {}, ext: { bidder: { productId: 7, siteId: 's' } } }, { id: 'j', banner: {}, ext: {} }] } as BidRequest;
      const { requests, errors } = bidder().makeRequests(request, testRequestInfo('33across'));
      expect(requests).to.deep.equal([]);
      expect(errors?.map((e) => e.code)).to.deep.equal([2, 2]);
    });

    it('reports a request ext Go cannot decode as FailedToUnmarshal (14), and still sends the calls', () => {
      const request = { id: 'r', imp: [banner('i', 'inview', 's')], site: { page: 'https://p.example/' }, ext: { ttx: { caller: 'x' } } } as BidRequest;
      const { requests, errors } = bidder().makeRequests(request, testRequestInfo('33across'));
      expect(requests).to.have.length(1);
      expect(errors?.map((e) => e.code)).to.deep.equal([14]);
    });
  });
});
