import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { compileEndpoint, type BidRequest, type Bidder } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = readTestHost('improvedigital');
const HOSTILE = ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb', 1.5, -0, '1234'];
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function bidder(endpoint = manifest.info.endpoint!): Bidder {
  return manifest.create!(testBidderConfig('improvedigital', endpoint), { logger: silentLogger });
}

function request(publisherId?: unknown): BidRequest {
  const params = publisherId === undefined ? { placementId: 1 } : { placementId: 1, publisherId };
  return { id: 'r', imp: [{ id: 'i', banner: { w: 300, h: 250 }, ext: { bidder: params } }], site: { page: 'https://p.example/' } };
}

const uris = (made: { requests: Array<{ uri: string }> }) => made.requests.map((r) => r.uri);

describe('improvedigital adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['a placement id', { placementId: 1 }],
      ['a publisher id', { placementId: 13245, publisherId: 1234 }],
      ['key values and a size', { placementId: 1, keyValues: { a: ['b'] }, size: { w: 300, h: 250 } }],
      ['an unknown key', { placementId: 1, note: 'x' }],
    ],
    invalid: [
      ['no placement id', { publisherId: 1 }],
      ['a zero placement id', { placementId: 0 }],
      ['a string placement id', { placementId: '1' }],
      ['a fractional placement id', { placementId: 1.5 }],
      ['a zero publisher id', { placementId: 1, publisherId: 0 }],
      ['a string publisher id', { placementId: 1, publisherId: '5' }],
      ['key values as a list', { placementId: 1, keyValues: ['a'] }],
      ['a size without h', { placementId: 1, size: { w: 300 } }],
      ['a fractional size', { placementId: 1, size: { w: 300.5, h: 250 } }],
      ['a non-object', 13245],
    ],
  });

  describe('endpoint', () => {
    it('puts the publisher id into the shipped endpoint path, or nothing', () => {
      expect(uris(bidder().makeRequests(request(1234), testRequestInfo('improvedigital')))).to.deep.equal(['https://ad.360yield.com/1234/pbs']);
      expect(uris(bidder().makeRequests(request(), testRequestInfo('improvedigital')))).to.deep.equal(['https://ad.360yield.com/pbs']);
    });

    it("takes a host endpoint written with Prebid Server's {PublisherId}", () => {
      const made = bidder('https://eu.360yield.example/{PublisherId}pbs').makeRequests(request(9), testRequestInfo('improvedigital'));
      expect(uris(made)).to.deep.equal(['https://eu.360yield.example/9/pbs']);
    });

    it('keeps hostile publisher ids off the URL and on the configured host', () => {
      const endpoint = compileEndpoint(manifest.info.endpoint!);
      for (const value of HOSTILE) {
        const made = bidder().makeRequests(request(value), testRequestInfo('improvedigital'));
        expect(made.errors, String(value)).to.deep.equal([]);
        expect(uris(made).every((uri) => endpoint.allows(uri)), String(value)).to.equal(true);
        expect(uris(made), String(value)).to.deep.equal(['https://ad.360yield.com/pbs']);
      }
    });

    it('reports a call it cannot build when a host puts the publisher into the host name', () => {
      const made = bidder('https://{{PublisherId}}.improve.example/pbs').makeRequests(request(5), testRequestInfo('improvedigital'));
      expect(made.requests).to.deep.equal([]);
      expect(made.errors?.map((e) => e.code)).to.deep.equal([2]);
    });
  });

  describe('robustness', () => {
    it('reports an imp without an ext object instead of throwing', () => {
      const made = bidder().makeRequests({ id: 'r', imp: [{ id: 'i', banner: {} }] }, testRequestInfo('improvedigital'));
      expect(made.requests).to.deep.equal([]);
      expect(made.errors?.map((e) => e.code)).to.deep.equal([14]);
    });

    it('reports an ext.prebid that is not an object with code 14, as Prebid Server passes the decoder error on', () => {
      const made = bidder().makeRequests({ id: 'r', imp: [{ id: 'i', banner: {}, ext: { prebid: 5, bidder: { placementId: 1 } } }] }, testRequestInfo('improvedigital'));
      expect(made.requests).to.deep.equal([]);
      expect(made.errors?.map((e) => e.code)).to.deep.equal([14]);
    });

    it('fails the response with code 14 when a bid.ext does not decode, as Prebid Server passes the decoder error on', () => {
      const sent = { method: 'POST' as const, uri: 'https://ad.360yield.com/pbs', impIds: ['i'] };
      for (const ext of ['5', '{"improvedigital": 5}', '{"improvedigital": {"line_item_id": 1.5}}', '{"improvedigital": {"buying_type": 1}}']) {
        const body = `{"seatbid": [{"bid": [{"id": "b", "impid": "i", "price": 1, "mtype": 1, "ext": ${ext}}]}]}`;
        const answer = bidder().makeBids(request(), sent, { status: 200, body, headers: {} });
        expect(answer.bids, ext).to.deep.equal([]);
        expect(answer.errors?.map((e) => e.code), ext).to.deep.equal([14]);
      }
    });

    it('answers odd bodies without throwing', () => {
      const sent = { method: 'POST' as const, uri: 'https://ad.360yield.com/pbs', impIds: ['i'] };
      for (const body of ['null', '[]', '{"seatbid": {}}', '{"seatbid": [null]}', '{"seatbid": [{"bid": [null]}]}', '{"seatbid": [{"bid": [{"impid": "i", "ext": 5}]}]}']) {
        expect(bidder().makeBids(request(), sent, { status: 200, body, headers: {} }).bids, body).to.deep.equal([]);
      }
    });
  });
});
