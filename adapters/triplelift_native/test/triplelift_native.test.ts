import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { BidderErrorCode, type BidRequest, type Bidder } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = readTestHost('triplelift_native');
const HOSTILE = ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb'];
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function bidder(extra: Record<string, unknown> = { publisher_whitelist: ['pub-1'] }): Bidder {
  return manifest.create!(testBidderConfig('triplelift_native', manifest.info.endpoint!, { extra }), { logger: silentLogger });
}

function request(inventoryCode = 'inv', publisherId = 'pub-1'): BidRequest {
  return { id: 'r', imp: [{ id: 'i', native: { request: '{}' }, ext: { bidder: { inventoryCode } } }], site: { page: 'https://p.example/', publisher: { id: publisherId } } };
}

describe('triplelift_native adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['an inventory code', { inventoryCode: 'pub_native' }],
      ['a floor', { inventoryCode: 'x', floor: 1 }],
      ['an unknown key', { inventoryCode: 'x', note: 1 }],
    ],
    invalid: [
      ['no inventory code', { floor: 1 }],
      ['an empty inventory code', { inventoryCode: '' }],
      ['a numeric inventory code', { inventoryCode: 5 }],
      ['a string floor', { inventoryCode: 'x', floor: '1' }],
      ['a non-object', 'x'],
    ],
  });

  describe('host settings', () => {
    it('ships disabled: only allowlisted publishers may be sent', () => {
      expect(manifest.info.disabled).to.equal(true);
      const { requests, errors } = bidder({}).makeRequests(request(), testRequestInfo('triplelift_native'));
      expect(requests).to.deep.equal([]);
      expect(errors).to.deep.equal([{ code: 999, message: 'Unsupported publisher for triplelift_native' }]);
    });

    it('refuses a malformed allowlist at boot, as Prebid Server does', () => {
      expect(() => bidder({ publisher_whitelist: 'pub-1' })).to.throw(/publisher_whitelist/);
      expect(() => bidder({ publisher_whitelist: [1] })).to.throw(/publisher_whitelist/);
    });

    it('sends to the configured endpoint, whatever the params say', () => {
      for (const value of HOSTILE) {
        const { requests } = bidder().makeRequests(request(value), testRequestInfo('triplelift_native'));
        expect(requests.map((r) => r.uri), value).to.deep.equal(['https://tlx.3lift.com/s2sn/auction?supplier_id=20']);
      }
    });
  });

  describe('robustness', () => {
    it('answers odd bodies without throwing', () => {
      const sent = { method: 'POST' as const, uri: 'https://tlx.3lift.com/s2sn/auction?supplier_id=20', impIds: ['i'] };
      for (const body of ['null', '[]', '{"seatbid": {}}', '{"seatbid": [{"bid": [null, 3]}]}']) {
        expect(bidder().makeBids(request(), sent, { status: 200, body, headers: {} }).bids, body).to.deep.equal([]);
      }
    });

    it('reports imp exts of the wrong shape', () => {
      const odd = {
        id: 'r',
        site: { publisher: { id: 'pub-1' } },
        imp: [
          { id: 'a', native: {} },
          { id: 'b', native: {}, ext: { bidder: { inventoryCode: 'x' }, data: 'tag' } },
          { id: 'c', native: {}, ext: { bidder: { inventoryCode: 'x' }, data: { tag_code: 5 } } },
          { id: 'd', native: {}, ext: { bidder: 'x' } },
        ],
      } as BidRequest;
      const { requests, errors } = bidder().makeRequests(odd, testRequestInfo('triplelift_native'));
      expect(requests).to.deep.equal([]);
      // Decoder errors carry Prebid Server's FailedToUnmarshal code; only the closing error is a plain one.
      const decoderError = BidderErrorCode.FailedToUnmarshal;
      expect(errors?.map((e) => e.code)).to.deep.equal([decoderError, decoderError, decoderError, decoderError, BidderErrorCode.Unknown]);
    });
  });
});
