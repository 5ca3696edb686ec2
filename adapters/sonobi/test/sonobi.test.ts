import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import sonobi from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

describe('sonobi adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(sonobi, fixturesDir)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(sonobi, {
    valid: [['a tag id', { TagID: '/7780971/apex_3pdm_integration' }]],
    invalid: [
      ['no tag id', {}],
      ['the tag id in lower case only', { tagid: '/1/a' }],
      ['a numeric tag id', { TagID: 7 }],
      ['a non-object', '/1/a'],
    ],
  });

  it('converts a floor in another currency to USD with the auction rates', () => {
    const bidder = sonobi.create!(testBidderConfig('sonobi', sonobi.info.endpoint!), { logger: silentLogger });
    const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, bidfloor: 2, bidfloorcur: 'GBP', ext: { bidder: { TagID: 't' } } }] };
    const info = testRequestInfo('sonobi', 'auction', { convertCurrency: (amount) => amount * 1.25 });
    const { requests } = bidder.makeRequests(request, info);
    expect((requests[0]!.body as BidRequest).imp[0]).to.include({ bidfloor: 2.5, bidfloorcur: 'USD', tagid: 't' });
  });

  it('skips an imp whose ext or params cannot be decoded with the decoder error, code 14', () => {
    const bidder = sonobi.create!(testBidderConfig('sonobi', sonobi.info.endpoint!), { logger: silentLogger });
    const request = {
      id: 'r',
      imp: [
        { id: 'a', banner: { w: 1, h: 1 }, ext: 'x' },
        { id: 'b', banner: { w: 1, h: 1 }, ext: { bidder: 'x' } },
        { id: 'c', banner: { w: 1, h: 1 }, ext: { bidder: { TagID: 7 } } },
      ],
    } as unknown as BidRequest;
    const { requests, errors } = bidder.makeRequests(request, testRequestInfo('sonobi'));
    expect(requests).to.have.length(0);
    expect(errors?.map((error) => error.code)).to.deep.equal([14, 14, 14]);
  });
});
