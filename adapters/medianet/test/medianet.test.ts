import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import medianet from '../index.js';
import { DEFAULT_SOURCE, endpointWithSource } from '../medianet.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = readTestHost('medianet');
const ENDPOINT = 'https://prebid-adapter.media.net/rtb/pb/prebids2s';

function uriFor(extra: Record<string, unknown>, params: unknown = { cid: 'c', crid: 'r' }): string[] {
  const bidder = medianet.create!(testBidderConfig('medianet', ENDPOINT, { extra }), { logger: console });
  const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: params } }] };
  return bidder.makeRequests(request, testRequestInfo('medianet')).requests.map((call) => call.uri);
}

describe('medianet adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(medianet, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(medianet, {
    valid: [
      ['a customer and a placement', { cid: '8CUTSTCID', crid: '999999999' }],
      ['extra keys beside them', { cid: '8CUTSTCID', crid: '1', tagid_src: 'ext' }],
    ],
    invalid: [
      ['no crid', { cid: '8CUTSTCID' }],
      ['no cid', { crid: '1' }],
      ['an empty cid', { cid: '', crid: '1' }],
      ['an empty crid', { cid: 'c', crid: '' }],
      ['a numeric crid', { cid: 'c', crid: 999 }],
      ['an array', ['c', 'r']],
    ],
  });

  describe('endpoint', () => {
    it("adds Prebid Server's default src when the host names none", () => {
      expect(uriFor({})).to.deep.equal([`${ENDPOINT}?src=${encodeURIComponent(DEFAULT_SOURCE)}`]);
    });

    it('adds the host-configured src, and none when it is empty', () => {
      expect(uriFor({ src: 'https://gavel.example/pbs' })).to.deep.equal([`${ENDPOINT}?src=https%3A%2F%2Fgavel.example%2Fpbs`]);
      expect(uriFor({ src: '' })).to.deep.equal([ENDPOINT]);
    });

    it('rewrites the query as Go does: keys sorted, spaces as +, only -_.~ left unescaped', () => {
      expect(endpointWithSource('https://x.media.net/a?z=1&b=2&z=0', "s p!*'()~")).to.equal('https://x.media.net/a?b=2&src=s+p%21%2A%27%28%29~&z=1&z=0');
      expect(endpointWithSource('not a url', 'https://h.example')).to.equal('not a url');
    });

    it('never takes the URL from params', () => {
      for (const hostile of ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb']) {
        expect(uriFor({ src: 'h' }, { cid: hostile, crid: hostile })).to.deep.equal([`${ENDPOINT}?src=h`]);
      }
    });
  });
});
