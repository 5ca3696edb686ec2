import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { BidderErrorCode, type BidRequest, type Bidder, type Imp } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = readTestHost('triplelift');
const HOSTILE = ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb'];
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };
const sent = { method: 'POST' as const, uri: 'https://tlx.3lift.com/s2s/auction?sra=1&supplier_id=20', impIds: ['i'] };

function bidder(): Bidder {
  return manifest.create!(testBidderConfig('triplelift', manifest.info.endpoint!), { logger: silentLogger });
}

function request(imp: Partial<Imp> = {}, inventoryCode = 'inv'): BidRequest {
  return { id: 'r', imp: [{ id: 'i', banner: { w: 300, h: 250 }, ext: { bidder: { inventoryCode } }, ...imp }], site: { page: 'https://p.example/' } };
}

describe('triplelift adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['an inventory code', { inventoryCode: 'pub_300x250' }],
      ['an empty inventory code', { inventoryCode: '' }],
      ['a floor', { inventoryCode: 'x', floor: 0.75 }],
      ['an unknown key', { inventoryCode: 'x', note: 1 }],
    ],
    invalid: [
      ['no inventory code', { floor: 1 }],
      ['a numeric inventory code', { inventoryCode: 5 }],
      ['a string floor', { inventoryCode: 'x', floor: '1' }],
      ['a non-object', 'x'],
    ],
  });

  describe('endpoint', () => {
    it('sends to the configured endpoint, whatever the params say', () => {
      for (const value of HOSTILE) {
        const { requests } = bidder().makeRequests(request({}, value), testRequestInfo('triplelift'));
        expect(requests.map((r) => r.uri), value).to.deep.equal(['https://tlx.3lift.com/s2s/auction?sra=1&supplier_id=20']);
      }
    });
  });

  describe('floors', () => {
    it("converts with the auction's rates first", () => {
      const info = testRequestInfo('triplelift', 'auction', { convertCurrency: (amount, from) => (from === 'EUR' ? amount * 2 : amount) });
      const { requests } = bidder().makeRequests(request({ bidfloor: 1.5, bidfloorcur: 'EUR' }), info);
      expect((requests[0]!.body as BidRequest).imp[0]).to.include({ bidfloor: 3, bidfloorcur: 'USD' });
    });
  });

  describe('error codes', () => {
    it('reports 400 as bad input and other statuses as plain errors, as Prebid Server does', () => {
      expect(bidder().makeBids(request(), sent, { status: 400, body: '', headers: {} }).errors?.map((e) => e.code)).to.deep.equal([2]);
      expect(bidder().makeBids(request(), sent, { status: 503, body: '', headers: {} }).errors?.map((e) => e.code)).to.deep.equal([999]);
    });

    it('reports a floor it cannot convert as bad input', () => {
      const { errors } = bidder().makeRequests(request({ bidfloor: 1, bidfloorcur: 'CHF' }), testRequestInfo('triplelift'));
      expect(errors?.map((e) => e.code)).to.deep.equal([2, 999]);
    });

    it("reports a bid.ext it cannot decode with the decoder's code and keeps the other bids, as Go passes it on unwrapped", () => {
      const body = JSON.stringify({ seatbid: [{ bid: [{ id: 'x', impid: 'i', price: 1, ext: { triplelift_pb: 'x' } }, { id: 'y', impid: 'i', price: 1, ext: { triplelift_pb: { format: 11 } } }] }] });
      const { bids, errors } = bidder().makeBids(request(), sent, { status: 200, body, headers: {} });
      expect(errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      expect(bids.map((b) => b.type)).to.deep.equal(['video']);
    });
  });

  describe('robustness', () => {
    it('answers odd bodies without throwing', () => {
      for (const body of ['null', '[]', '{"seatbid": {}}', '{"seatbid": [{"bid": [null, 3]}]}']) {
        expect(bidder().makeBids(request(), sent, { status: 200, body, headers: {} }).bids, body).to.deep.equal([]);
      }
    });

    it("reports params of the wrong shape with the decoder's code, as Prebid Server's jsonutil does", () => {
      const odd = { id: 'r', imp: [{ id: 'a', banner: {}, ext: { bidder: { inventoryCode: 3 } } }, { id: 'b', banner: {}, ext: { bidder: { inventoryCode: 'x', floor: 'high' } } }, { id: 'c', banner: {} }] } as BidRequest;
      const { requests, errors } = bidder().makeRequests(odd, testRequestInfo('triplelift'));
      expect(requests).to.deep.equal([]);
      expect(errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.FailedToUnmarshal, BidderErrorCode.FailedToUnmarshal, BidderErrorCode.FailedToUnmarshal, BidderErrorCode.Unknown]);
    });
  });
});
