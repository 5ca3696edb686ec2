import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { BidderErrorCode, type BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import yieldmo from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
/** Prebid Server's fixtures use the endpoint https://ads.yieldmo.com/openrtb2; ours follow them (test/host-config.json). */
const host = readTestHost('yieldmo');
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };
const bidder = () => yieldmo.create!(testBidderConfig('yieldmo', yieldmo.info.endpoint!), { logger: silentLogger });

describe('yieldmo adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(yieldmo, fixturesDir, host)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(yieldmo, {
    valid: [['a placement id', { placementId: '1779781193098233305' }]],
    invalid: [
      ['no placement id', {}],
      ['a numeric placement id', { placementId: 1779781193098233 }],
      ['a non-object', '1779781193098233305'],
    ],
  });

  it('converts a floor in another currency to USD with the auction rates', () => {
    const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, bidfloor: 1, bidfloorcur: 'EUR', ext: { bidder: { placementId: 'p' } } }] };
    const info = testRequestInfo('yieldmo', 'auction', { convertCurrency: (amount) => amount * 1.1 });
    const { requests, errors } = bidder().makeRequests(request, info);
    expect(errors).to.deep.equal([]);
    expect((requests[0]!.body as BidRequest).imp[0]).to.deep.include({ bidfloor: 1.1, bidfloorcur: 'USD', ext: { placement_id: 'p' } });
  });

  it("reports an undecodable body with the decoder's code, as Prebid Server's jsonutil does", () => {
    const sent = { method: 'POST' as const, uri: yieldmo.info.endpoint!, impIds: ['i'] };
    const result = bidder().makeBids({ id: 'r', imp: [] }, sent, { status: 200, body: 'nope', headers: {} });
    expect(result.errors![0]!.code).to.equal(BidderErrorCode.FailedToUnmarshal);
  });
});
