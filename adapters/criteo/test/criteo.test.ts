import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import criteo from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const ENDPOINT = criteo.info.endpoint!;
const bidder = criteo.create!(testBidderConfig('criteo', ENDPOINT), { logger: console });
const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { zoneId: 1 } } }] };

describe('criteo adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(criteo, fixturesDir)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(criteo, {
    valid: [
      ['a zone id', { zoneId: 123 }],
      ['the lower-case zone id', { zoneid: 0 }],
      ['a network id', { networkId: 7 }],
      ['the lower-case network id', { networkid: 7 }],
      ['a zone with publisher and ad unit ids', { zoneId: 1, pubid: 'pub-1', uid: 42 }],
    ],
    invalid: [
      ['neither zone nor network', { pubid: 'pub-1', uid: 1 }],
      ['a negative zone id', { zoneId: -1 }],
      ['a fractional network id', { networkId: 1.5 }],
      ['a zone id as text', { zoneId: '123' }],
      ['an empty publisher id', { zoneId: 1, pubid: '' }],
      ['a negative ad unit id', { zoneId: 1, uid: -3 }],
      ['an array', [1]],
    ],
  });

  describe('bid meta', () => {
    it('names the demand network from ext.prebid.networkName, and only when it is set', () => {
      const body = JSON.stringify({
        seatbid: [{ bid: [
          { id: 'a', impid: 'i', price: 1, ext: { prebid: { type: 'banner', networkName: 'net-a' } } },
          { id: 'b', impid: 'i', price: 1, ext: { prebid: { type: 'banner', networkName: '' } } },
        ] }],
      });
      const { bids } = bidder.makeBids(request, { method: 'POST', uri: ENDPOINT, impIds: ['i'] }, { status: 200, body, headers: {} });
      expect(bids.map((bid) => bid.meta)).to.deep.equal([{ networkName: 'net-a' }, undefined]);
    });

    it('reports a 400 as bad input (code 2) and other statuses as bad server responses (code 3)', () => {
      const codes = [400, 500].map((status) => bidder.makeBids(request, { method: 'POST', uri: ENDPOINT, impIds: ['i'] }, { status, body: '', headers: {} }).errors![0]!.code);
      expect(codes).to.deep.equal([2, 3]);
    });
  });

  describe('endpoint', () => {
    it('never takes the URL from params', () => {
      for (const hostile of ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb']) {
        const hostileRequest: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { zoneId: 1, pubid: hostile } } }] };
        expect(bidder.makeRequests(hostileRequest, testRequestInfo('criteo')).requests.map((call) => call.uri)).to.deep.equal([ENDPOINT]);
      }
    });
  });
});
