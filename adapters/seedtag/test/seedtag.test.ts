import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { ConversionNotFoundError, type BidRequest, type Imp } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import seedtag from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = readTestHost('seedtag');
const ENDPOINT = 'https://s.seedtag.com/c/openrtb?partner=prebidserver';
const bidder = seedtag.create!(testBidderConfig('seedtag', ENDPOINT), { logger: console });

/** A converter that knows one rate, EUR -> USD at 1.1, as the host's rates would. */
function hostRates(amount: number, from: string, to: string): number {
  if (from === to) return amount;
  if (from === 'EUR' && to === 'USD') return amount * 1.1;
  throw new ConversionNotFoundError(from, to);
}

describe('seedtag adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(seedtag, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(seedtag, {
    valid: [
      ['an ad unit id', { adUnitId: 'example-tag-id' }],
      ['a run-of-network publisher', { publisherId: 'abc123', integrationType: 'ronId' }],
      ['an ad unit id with a lone publisher id', { adUnitId: 'u', publisherId: 'p' }],
    ],
    invalid: [
      ['nothing', {}],
      ['a publisher id without integration type', { publisherId: 'abc123' }],
      ['another integration type', { publisherId: 'abc123', integrationType: 'tag' }],
      ['both forms at once', { adUnitId: 'u', publisherId: 'p', integrationType: 'ronId' }],
      ['an empty ad unit id', { adUnitId: '' }],
      ['an empty publisher id', { publisherId: '', integrationType: 'ronId' }],
      ['a numeric ad unit id', { adUnitId: 7 }],
      ['a string', 'example-tag-id'],
    ],
  });

  describe('floors', () => {
    it("converts with the auction's rates first", () => {
      const request: BidRequest = {
        id: 'r',
        imp: [{ id: 'i', banner: { w: 1, h: 1 }, bidfloor: 2, bidfloorcur: 'EUR', ext: { bidder: { adUnitId: 'u' } } }],
        ext: { prebid: { currency: { rates: { EUR: { USD: 5 } } } } },
      };
      const { requests, errors } = bidder.makeRequests(request, testRequestInfo('seedtag', 'auction', { convertCurrency: hostRates }));
      expect(errors).to.deep.equal([]);
      const imp = (requests[0]!.body as BidRequest).imp[0] as Imp;
      expect(imp.bidfloorcur).to.equal('USD');
      expect(imp.bidfloor).to.be.closeTo(2.2, 1e-9);
      expect(request.imp[0]!.bidfloor).to.equal(2);
    });

    it('reports a missing rate as an unknown error (code 999), as Prebid Server does', () => {
      const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, bidfloor: 2, bidfloorcur: 'CHF', ext: { bidder: { adUnitId: 'u' } } }] };
      const { requests, errors } = bidder.makeRequests(request, testRequestInfo('seedtag', 'auction', { convertCurrency: hostRates }));
      expect(requests).to.deep.equal([]);
      expect(errors).to.deep.equal([{ code: 999, message: "Currency conversion rate not found: 'CHF' => 'USD'" }]);
    });
  });

  describe('endpoint', () => {
    it('never takes the URL from params', () => {
      for (const hostile of ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb']) {
        const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { adUnitId: hostile } } }] };
        expect(bidder.makeRequests(request, testRequestInfo('seedtag')).requests.map((call) => call.uri)).to.deep.equal([ENDPOINT]);
      }
    });
  });
});
