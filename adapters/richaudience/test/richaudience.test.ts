import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { BidderErrorCode, type BidRequest, type RequestData } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

describe('richaudience adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['a placement and a supply type', { pid: 'OsNsyeF68q', supplyType: 'site' }],
      ['test mode', { pid: 'p', supplyType: 'app', test: true }],
      ['a floor and its currency', { pid: 'p', supplyType: 'site', bidFloor: 0.5, bidFloorCur: 'EUR' }],
      ['an empty placement', { pid: '', supplyType: '' }],
      ['an unknown extra field', { pid: 'p', supplyType: 'site', note: 1 }],
    ],
    invalid: [
      ['no placement', { supplyType: 'site' }],
      ['no supply type', { pid: 'p' }],
      ['a numeric placement', { pid: 7, supplyType: 'site' }],
      ['test as a string', { pid: 'p', supplyType: 'site', test: 'true' }],
      ['a floor as a string', { pid: 'p', supplyType: 'site', bidFloor: '0.5' }],
      ['a numeric floor currency', { pid: 'p', supplyType: 'site', bidFloorCur: 978 }],
      ['a non-object', 'OsNsyeF68q'],
    ],
  });

  describe('direct calls', () => {
    const endpoint = 'https://ra.example/ortb';
    const bidder = manifest.create!(testBidderConfig('richaudience', endpoint), { logger: silentLogger });
    const request: BidRequest = {
      id: 'r',
      imp: [{ id: 'i', banner: { w: 300, h: 250 }, ext: { bidder: { pid: 'p', supplyType: 'site' } } }],
      device: { ip: '192.0.2.1' },
    };

    it('calls the configured endpoint, never one built from params', () => {
      const { requests } = bidder.makeRequests(request, testRequestInfo('richaudience'));
      expect(requests.map((r) => r.uri)).to.deep.equal([endpoint]);
    });

    it('reads the sent body back when it is a string, and refuses one that is not a bid request', () => {
      const answer = JSON.stringify({ id: 'r', seatbid: [{ bid: [{ id: 'b', impid: 'i', price: 1 }] }] });
      const asText: RequestData = { method: 'POST', uri: endpoint, impIds: ['i'], body: JSON.stringify({ imp: [{ id: 'i', banner: {} }] }) };
      expect(bidder.makeBids(request, asText, { status: 200, body: answer, headers: {} }).bids.map((b) => b.type)).to.deep.equal(['banner']);

      for (const body of ['not json', '[1]']) {
        const result = bidder.makeBids(request, { ...asText, body }, { status: 200, body: answer, headers: {} });
        expect(result.bids).to.deep.equal([]);
        expect(result.errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.BadServerResponse]);
      }
    });
  });
});
