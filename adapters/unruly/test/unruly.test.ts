import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BidRequest, RequestData } from '../../../core/api/index.js';
import { testBidderConfig } from '../../../test/harness/adapter-kit.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = JSON.parse(readFileSync(new URL('./host-config.json', import.meta.url), 'utf8')) as { endpoint: string };
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

describe('unruly adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['siteId', { siteId: 72721 }],
      ['the older siteid', { siteid: 72721 }],
      ['siteId with an unknown extra field', { siteId: 1, other: 'x' }],
    ],
    invalid: [
      ['no site id', {}],
      ['both spellings', { siteId: 1, siteid: 1 }],
      ['a site id as text', { siteId: '72721' }],
      ['a fractional site id', { siteid: 1.5 }],
      ['a non-object', 72721],
    ],
  });

  it('reports the duration of video bids that state one', () => {
    const bidder = manifest.create!(testBidderConfig('unruly', testHost.endpoint), { logger: silentLogger });
    const request: BidRequest = { id: 'r', imp: [{ id: 'v', video: { mimes: ['video/mp4'] }, ext: { bidder: { siteId: 1 } } }] };
    const sent: RequestData = { method: 'POST', uri: testHost.endpoint, impIds: ['v'] };
    const body = JSON.stringify({ seatbid: [{ bid: [{ id: 'a', impid: 'v', price: 1, dur: 30 }, { id: 'b', impid: 'v', price: 1 }] }] });
    const { bids } = bidder.makeBids(request, sent, { status: 200, body, headers: {} });
    expect(bids.map((b) => b.video)).to.deep.equal([{ duration: 30 }, undefined]);
  });
});
