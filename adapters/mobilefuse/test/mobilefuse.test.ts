import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { BidderErrorCode, type BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import mobilefuse from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };
const bidder = () => mobilefuse.create!(testBidderConfig('mobilefuse', mobilefuse.info.endpoint!), { logger: silentLogger });

describe('mobilefuse adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(mobilefuse, fixturesDir)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(mobilefuse, {
    valid: [['a placement id', { placement_id: 123456 }]],
    invalid: [
      ['no placement id', {}],
      ['a placement id as text', { placement_id: '123456' }],
      ['a fractional placement id', { placement_id: 1.5 }],
      ['a non-object', 123456],
    ],
  });

  describe('error codes', () => {
    it('reports request problems as generic errors, as Prebid Server does for plain Go errors', () => {
      const request: BidRequest = { id: 'r', imp: [{ id: 'a', audio: { mimes: ['audio/mp4'] }, ext: { bidder: { placement_id: 1 } } }] };
      const { errors } = bidder().makeRequests(request, testRequestInfo('mobilefuse'));
      expect(errors).to.deep.equal([{ code: BidderErrorCode.Unknown, message: 'No valid imps' }]);
    });

    it("reports params the decoder cannot read with the decoder's own type, FailedToUnmarshal", () => {
      const request: BidRequest = { id: 'r', imp: [{ id: 'a', banner: {}, ext: { bidder: { placement_id: 1.5 } } }] };
      const { errors } = bidder().makeRequests(request, testRequestInfo('mobilefuse'));
      expect(errors!.map((error) => error.code)).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
    });

    it('reports an unknown mtype as a bad server response and 400 as bad input', () => {
      const sent = { method: 'POST' as const, uri: mobilefuse.info.endpoint!, impIds: ['i'] };
      const request: BidRequest = { id: 'r', imp: [] };
      const body = JSON.stringify({ seatbid: [{ bid: [{ id: 'b', impid: 'i', price: 1, mtype: 3 }] }] });
      expect(bidder().makeBids(request, sent, { status: 200, body, headers: {} }).errors![0]!.code).to.equal(BidderErrorCode.BadServerResponse);
      expect(bidder().makeBids(request, sent, { status: 400, body: '', headers: {} }).errors![0]!.code).to.equal(BidderErrorCode.BadInput);
    });
  });
});
