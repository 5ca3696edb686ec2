import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { BidderErrorCode, type BidRequest, type RequestData } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function bidder(endpoint = manifest.info.endpoint!) {
  return manifest.create!(testBidderConfig('teads', endpoint), { logger: silentLogger });
}

const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 300, h: 250 }, ext: { bidder: { placementId: 7 } } }], app: { bundle: 'b' } };

describe('teads adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['a placement id', { placementId: 125 }],
      ['a placement id with an unknown extra field', { placementId: 1, other: 'x' }],
    ],
    invalid: [
      ['no placement id', {}],
      ['a zero placement id', { placementId: 0 }],
      ['a fractional placement id', { placementId: 1.5 }],
      ['a placement id as text', { placementId: '125' }],
      ['a non-object', 125],
    ],
  });

  it('refuses a request without imps', () => {
    const { requests, errors } = bidder().makeRequests({ ...request, imp: [] }, testRequestInfo('teads'));
    expect(requests).to.deep.equal([]);
    expect(errors).to.deep.equal([{ code: BidderErrorCode.BadInput, message: 'No impression in the bid request' }]);
  });

  it('reports an endpoint whose host macro it cannot fill as bad input, per call', () => {
    const { requests, errors } = bidder('https://{{.Host}}.teads.example/bid').makeRequests(request, testRequestInfo('teads'));
    expect(requests).to.deep.equal([]);
    expect(errors?.[0]?.code).to.equal(BidderErrorCode.BadInput);
    expect(errors?.[0]?.message).to.match(/^Unable to parse endpoint url template: /);
  });

  it('reports the renderer of each bid in its meta', () => {
    const sent: RequestData = { method: 'POST', uri: manifest.info.endpoint!, impIds: ['i'] };
    const body = JSON.stringify({ seatbid: [{ bid: [{ id: 'b', impid: 'i', price: 1, ext: { prebid: { meta: { rendererName: 'teads', rendererVersion: '5.0.25' } } } }] }] });
    const { bids } = bidder().makeBids(request, sent, { status: 200, body, headers: {} });
    expect(bids.map((b) => b.meta)).to.deep.equal([{ rendererName: 'teads', rendererVersion: '5.0.25' }]);
  });

  it('reports a bid.ext it cannot decode as the decoder error (FailedToUnmarshal), as Go passes it on unwrapped', () => {
    const sent: RequestData = { method: 'POST', uri: manifest.info.endpoint!, impIds: ['i'] };
    const body = JSON.stringify({ seatbid: [{ bid: [{ id: 'b', impid: 'i', price: 1, ext: { prebid: 'x' } }] }] });
    const { bids, errors } = bidder().makeBids(request, sent, { status: 200, body, headers: {} });
    expect(bids).to.deep.equal([]);
    expect(errors?.[0]?.code).to.equal(BidderErrorCode.FailedToUnmarshal);
  });

  it('reports an imp.ext it cannot decode as bad input, as Go wraps it', () => {
    const bad: BidRequest = { ...request, imp: [{ id: 'i', banner: { w: 300, h: 250 }, ext: { bidder: { placementId: 'x' } } }] };
    const { errors } = bidder().makeRequests(bad, testRequestInfo('teads'));
    expect(errors).to.deep.equal([{ code: BidderErrorCode.BadInput, message: 'Error parsing Imp.Ext object' }]);
  });
});
