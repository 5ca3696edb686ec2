import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
// Calls carry the host's identity, so the fixtures are recorded under the host facts Prebid Server's tests use.
const testHost = readTestHost('nextmillennium');
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function bidder(extra: Record<string, unknown> = {}) {
  return manifest.create!(testBidderConfig('nextmillennium', manifest.info.endpoint!, { extra }), { logger: silentLogger });
}

describe('nextmillennium adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['a placement id', { placement_id: '7819' }],
      ['a group id', { group_id: '7819' }],
      ['a group with ad slots and allowed ads', { group_id: '1', adSlots: ['a', 'b'], allowedAds: [] }],
      ['both ids', { placement_id: '1', group_id: '2' }],
    ],
    invalid: [
      ['neither id', { adSlots: ['a'] }],
      ['an empty placement id', { placement_id: '' }],
      ['a numeric group id', { group_id: 7819 }],
      ['empty ad slots', { placement_id: '1', adSlots: [] }],
      ['ad slots that are not strings', { placement_id: '1', adSlots: [1] }],
      ['allowed ads as a string', { placement_id: '1', allowedAds: 'ad' }],
      ['a non-object', '7819'],
    ],
  });

  describe('host settings', () => {
    const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { placement_id: 'p' } } }] };

    it('sends the host flags with the imp and the request', () => {
      const { requests } = bidder({ nmmFlags: ['fast', 'eu'] }).makeRequests(request, testRequestInfo('nextmillennium'));
      const body = requests[0]!.body as BidRequest;
      expect(body.imp[0]!.ext).to.deep.equal({ prebid: { storedrequest: { id: 'p' } }, nextMillennium: { nmmFlags: ['fast', 'eu'] } });
      expect((body.ext as { nextMillennium: unknown }).nextMillennium).to.deep.equal({ nmmFlags: ['fast', 'eu'], nm_version: 'v1.0.1' });
      expect((body.ext as { prebid: { server: unknown } }).prebid.server).to.deep.equal({ externalurl: 'http://hosturl.com', gvlid: 0, datacenter: '' });
    });

    it("sends the host's Gavel version as server_version, where Prebid Server sends its own", () => {
      const config = testBidderConfig('nextmillennium', manifest.info.endpoint!, { host: { externalUrl: 'http://hosturl.com', version: '0.1.0' } });
      const { requests } = manifest.create!(config, { logger: silentLogger }).makeRequests(request, testRequestInfo('nextmillennium'));
      expect((requests[0]!.body as BidRequest).ext?.nextMillennium).to.deep.equal({ server_version: '0.1.0', nm_version: 'v1.0.1' });
    });

    it('refuses host settings of the wrong type at boot, as Prebid Server does', () => {
      expect(() => bidder({ nmmFlags: 'fast' })).to.throw('invalid extra info');
      expect(() => bidder({ server_version: 3 })).to.throw('invalid extra info');
    });
  });

  describe('error codes', () => {
    const sent = { method: 'POST' as const, uri: manifest.info.endpoint!, impIds: ['i'] };
    const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { placement_id: 7 } } }] };

    it('reports unreadable params as bad input, as Prebid Server wraps its decoder errors', () => {
      expect(bidder().makeRequests(request, testRequestInfo('nextmillennium')).errors?.map((e) => e.code)).to.deep.equal([2]);
    });

    it('reports an undecodable answer and a 400 as bad server responses', () => {
      expect(bidder().makeBids(request, sent, { status: 200, body: '{"seatbid":3}', headers: {} }).errors?.map((e) => e.code)).to.deep.equal([3]);
      expect(bidder().makeBids(request, sent, { status: 400, body: '', headers: {} }).errors?.map((e) => e.code)).to.deep.equal([3]);
    });
  });
});
