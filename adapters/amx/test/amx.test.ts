import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BidderErrorCode, type BidRequest, type RequestData } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = JSON.parse(readFileSync(new URL('./host-config.json', import.meta.url), 'utf8')) as { endpoint: string };
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function bidderAt(endpoint: string) {
  return manifest.create!(testBidderConfig('amx', endpoint), { logger: silentLogger });
}

describe('amx adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['no params at all', {}],
      ['a publisher id', { tagId: 'cHJlYmlkLm9yZw' }],
      ['an ad unit id', { adUnitId: 'homepage-top' }],
      ['both', { tagId: 'p', adUnitId: 'u' }],
      ['an unknown extra field', { tagId: 'p', other: true }],
    ],
    invalid: [
      ['a numeric publisher id', { tagId: 12 }],
      ['an ad unit id object', { adUnitId: { id: 'u' } }],
      ['a non-object', 'cHJlYmlkLm9yZw'],
      ['null', null],
    ],
  });

  describe('endpoint', () => {
    const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: {} } }] };

    it('adds the version to the query, re-encoded as Prebid Server does (keys sorted, values escaped)', () => {
      const { requests } = bidderAt('https://amx.example/bid?z=1&a=x y*&v=old#top').makeRequests(request, testRequestInfo('amx'));
      expect(requests[0]!.uri).to.equal('https://amx.example/bid?a=x+y%2A&v=old&v=pbs1.3&z=1#top');
    });

    it('refuses at creation an endpoint whose query Prebid Server cannot parse', () => {
      expect(() => bidderAt('https://amx.example/bid?a=1;b=2')).to.throw('invalid query parameters in the endpoint');
      expect(() => bidderAt('https://amx.example/bid?a=%zz')).to.throw('invalid query parameters in the endpoint');
    });
  });

  describe('floors', () => {
    it('converts a floor in another currency to dollars and asks for dollar bids', () => {
      const request: BidRequest = { id: 'r', cur: ['EUR'], imp: [{ id: 'i', banner: { w: 1, h: 1 }, bidfloor: 2, bidfloorcur: 'EUR', ext: { bidder: {} } }] };
      const info = testRequestInfo('amx', 'auction', { convertCurrency: (amount, from, to) => (from === 'EUR' && to === 'USD' ? amount * 1.1 : amount) });
      const { requests, errors } = bidderAt(testHost.endpoint).makeRequests(request, info);
      expect(errors).to.deep.equal([]);
      const body = requests[0]!.body as BidRequest;
      expect(body.cur).to.deep.equal(['USD']);
      expect(body.imp[0]!.bidfloor).to.be.closeTo(2.2, 1e-9);
      expect(body.imp[0]!.bidfloorcur).to.equal('USD');
      expect(request.imp[0]!.bidfloor).to.equal(2);
    });

    it('reports a floor it cannot convert as an unknown error and drops the imp', () => {
      const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, bidfloor: 2, bidfloorcur: 'EUR', ext: { bidder: {} } }] };
      const { requests, errors } = bidderAt(testHost.endpoint).makeRequests(request, testRequestInfo('amx'));
      expect(requests).to.deep.equal([]);
      expect(errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.Unknown]);
    });
  });

  describe('bids', () => {
    const sent: RequestData = { method: 'POST', uri: testHost.endpoint, impIds: ['i'] };
    const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 } }] };

    it('reports advertiser domains and the demand source in the bid meta', () => {
      const body = JSON.stringify({
        seatbid: [{ bid: [
          { id: 'a', impid: 'i', price: 1, adomain: ['brand.example'], ext: { ds: 'dsp-1' } },
          { id: 'b', impid: 'i', price: 1, adomain: [], ext: { ds: '' } },
        ] }],
      });
      const { bids } = bidderAt(testHost.endpoint).makeBids(request, sent, { status: 200, body, headers: {} });
      expect(bids.map((b) => b.meta)).to.deep.equal([{ advertiserDomains: ['brand.example'], demandSource: 'dsp-1' }, {}]);
    });

    it('reports an unreadable answer as the decoder\'s error (FailedToUnmarshal), as Prebid Server does', () => {
      const result = bidderAt(testHost.endpoint).makeBids(request, sent, { status: 200, body: '{', headers: {} });
      expect(result.errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
    });
  });
});
