import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BidderErrorCode, compileEndpoint, type BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = JSON.parse(readFileSync(new URL('./host-config.json', import.meta.url), 'utf8')) as { extra: Record<string, unknown> };
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };
const ENDPOINT = manifest.info.endpoint!;

function bidder(extra: Record<string, unknown> = {}, endpoint = ENDPOINT) {
  return manifest.create!(testBidderConfig('thetradedesk', endpoint, { extra }), { logger: silentLogger });
}

function request(supplySourceId?: string): BidRequest {
  return { id: 'r', imp: [{ id: 'i', banner: { w: 300, h: 250 }, ext: { bidder: { publisherId: 'p', supplySourceId } } }], site: { page: 'https://a.example/' } };
}

describe('thetradedesk adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['a publisher id', { publisherId: '123456' }],
      ['a publisher and a supply source', { publisherId: '123456', supplySourceId: 'publisher_xyz' }],
      ['an unknown extra field', { publisherId: 'p', other: 1 }],
    ],
    invalid: [
      ['no publisher id', {}],
      ['only a supply source', { supplySourceId: 'publisher_xyz' }],
      ['an empty publisher id', { publisherId: '' }],
      ['an empty supply source', { publisherId: 'p', supplySourceId: '' }],
      ['a numeric publisher id', { publisherId: 123456 }],
      ['a non-object', '123456'],
    ],
  });

  describe('endpoint', () => {
    const template = compileEndpoint(ENDPOINT);
    for (const hostile of ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb', '../../x']) {
      it(`keeps the supply source ${JSON.stringify(hostile)} on the configured host`, () => {
        const { requests, errors } = bidder().makeRequests(request(hostile), testRequestInfo('thetradedesk'));
        expect(errors ?? []).to.deep.equal([]);
        expect(requests).to.have.length(1);
        expect(template.allows(requests[0]!.uri)).to.equal(true);
        expect(new URL(requests[0]!.uri).host).to.equal('direct.adsrvr.org');
      });
    }

    it('uses the host supply id when no imp names a supply source', () => {
      const { requests } = bidder({ supplyId: 'ttd' }).makeRequests(request(), testRequestInfo('thetradedesk'));
      expect(requests[0]!.uri).to.equal('https://direct.adsrvr.org/bid/bidder/ttd');
    });

    it('refuses a host supply id that does not end in lower-case letters, as Prebid Server does at build', () => {
      expect(() => bidder({ supplyId: 'TTD1' })).to.throw('ExtraAdapterInfo must be a simple string provided by TheTradeDesk');
      expect(() => bidder({ supplyId: 7 })).to.throw('ExtraAdapterInfo must be a simple string provided by TheTradeDesk');
    });

    describe('with the supply id in the host name', () => {
      const hostTemplate = 'https://{{.SupplyId}}.adsrvr.example/bid';

      it('cannot build a default endpoint without a host supply id, and says so', () => {
        const { requests, errors } = bidder({}, hostTemplate).makeRequests(request(), testRequestInfo('thetradedesk'));
        expect(requests).to.deep.equal([]);
        expect(errors).to.deep.equal([{ code: BidderErrorCode.Unknown, message: 'Either supplySourceId or a default endpoint must be provided' }]);
      });

      it('refuses a supply source that is not a host label', () => {
        for (const hostile of ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb']) {
          const { requests, errors } = bidder({ supplyId: 'ttd' }, hostTemplate).makeRequests(request(hostile), testRequestInfo('thetradedesk'));
          expect(requests).to.deep.equal([]);
          expect(errors?.[0]?.message).to.match(/^unable to resolve endpoint macros: /);
        }
      });

      it('puts a plain supply source into the host name', () => {
        const { requests } = bidder({ supplyId: 'ttd' }, hostTemplate).makeRequests(request('east-1'), testRequestInfo('thetradedesk'));
        expect(requests[0]!.uri).to.equal('https://east-1.adsrvr.example/bid');
      });
    });
  });

  it('reports params it cannot decode as the decoder error (FailedToUnmarshal), as Go passes it on unwrapped', () => {
    const bad: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 300, h: 250 }, ext: { bidder: { publisherId: 7 } } }], site: {} };
    const { requests, errors } = bidder().makeRequests(bad, testRequestInfo('thetradedesk'));
    expect(requests).to.deep.equal([]);
    expect(errors?.[0]?.code).to.equal(BidderErrorCode.FailedToUnmarshal);
    const notObject: BidRequest = { ...bad, imp: [{ id: 'i', banner: { w: 300, h: 250 }, ext: { bidder: 'x' } }] };
    expect(bidder().makeRequests(notObject, testRequestInfo('thetradedesk')).errors?.[0]?.code).to.equal(BidderErrorCode.FailedToUnmarshal);
  });
});
