import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { compileEndpoint, type BidRequest, type Bidder } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = readTestHost('onetag');
const HOSTILE = ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb', '../../admin', 'a?x=1'];
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function bidder(endpoint = manifest.info.endpoint!): Bidder {
  return manifest.create!(testBidderConfig('onetag', endpoint), { logger: silentLogger });
}

function request(pubId: string): BidRequest {
  return { id: 'r', imp: [{ id: 'i', banner: { w: 300, h: 250 }, ext: { bidder: { pubId } } }], site: { page: 'https://p.example/' } };
}

describe('onetag adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['a publisher id', { pubId: '386276e072' }],
      ['custom key-values', { pubId: 'p', ext: { key1: 'value1' } }],
      ['an unknown key', { pubId: 'p', note: 1 }],
    ],
    invalid: [
      ['no publisher id', { ext: {} }],
      ['an empty publisher id', { pubId: '' }],
      ['a numeric publisher id', { pubId: 386276 }],
      ['key-values as a string', { pubId: 'p', ext: 'k=v' }],
      ['a non-object', 'p'],
    ],
  });

  describe('endpoint', () => {
    it('puts the publisher id into the shipped endpoint path', () => {
      const { requests } = bidder().makeRequests(request('386276e072'), testRequestInfo('onetag'));
      expect(requests.map((r) => r.uri)).to.deep.equal(['https://prebid-server.onetag-sys.com/prebid-server/386276e072']);
    });

    it('keeps hostile publisher ids on the configured host, encoded in the path', () => {
      const endpoint = compileEndpoint(manifest.info.endpoint!);
      for (const value of HOSTILE) {
        const { requests, errors } = bidder().makeRequests(request(value), testRequestInfo('onetag'));
        expect(errors ?? [], value).to.deep.equal([]);
        expect(requests.map((r) => r.uri), value).to.deep.equal([`https://prebid-server.onetag-sys.com/prebid-server/${encodeURIComponent(value)}`]);
        expect(endpoint.allows(requests[0]!.uri), value).to.equal(true);
      }
    });

    it('refuses hostile publisher ids where a host puts them into the host name', () => {
      for (const value of HOSTILE) {
        const { requests, errors } = bidder('https://{{.PublisherID}}.onetag.example/pbs').makeRequests(request(value), testRequestInfo('onetag'));
        expect(requests, value).to.deep.equal([]);
        expect(errors?.map((e) => e.code), value).to.deep.equal([999]);
      }
    });
  });

  describe('robustness', () => {
    it('answers odd bodies without throwing', () => {
      const sent = { method: 'POST' as const, uri: 'https://prebid-server.onetag-sys.com/prebid-server/p', impIds: ['i'] };
      for (const body of ['null', '[]', '{"seatbid": {}}', '{"seatbid": [{"bid": [null, 3]}]}']) {
        expect(bidder().makeBids(request('p'), sent, { status: 200, body, headers: {} }).bids, body).to.deep.equal([]);
      }
    });
  });
});
