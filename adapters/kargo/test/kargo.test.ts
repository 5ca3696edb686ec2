import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import kargo from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = readTestHost('kargo');

describe('kargo adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(kargo, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(kargo, {
    valid: [
      ['a placement id', { placementId: 'plc-1' }],
      ['the deprecated ad slot id', { adSlotID: '11523' }],
      ['an empty placement id (the reference schema sets no minimum length)', { placementId: '' }],
      ['other keys beside the id', { placementId: 'plc-1', note: 'kept' }],
    ],
    invalid: [
      ['no id at all', {}],
      ['both spellings at once', { placementId: 'plc-1', adSlotID: '11523' }],
      ['a numeric placement id', { placementId: 11523 }],
      ['a numeric ad slot id', { adSlotID: 11523 }],
      ['a string', 'plc-1'],
      ['null', null],
    ],
  });

  describe('endpoint', () => {
    it('calls the configured endpoint whatever the params say, and leaves the request untouched', () => {
      const endpoint = 'https://krk2.kargo.com/api/v1/openrtb';
      const bidder = kargo.create!(testBidderConfig('kargo', endpoint), { logger: console });
      for (const hostile of ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb']) {
        const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { placementId: hostile } } }] };
        const copy = structuredClone(request);
        const { requests } = bidder.makeRequests(request, testRequestInfo('kargo'));
        expect(requests.map((call) => call.uri)).to.deep.equal([endpoint]);
        expect(request).to.deep.equal(copy);
      }
    });
  });
});
