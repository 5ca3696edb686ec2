import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { BidRequest, Bidder } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = readTestHost('yahooAds');
const HOSTILE = ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb'];
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function bidder(): Bidder {
  return manifest.create!(testBidderConfig('yahooAds', manifest.info.endpoint!), { logger: silentLogger });
}

function request(dcn: string, pos: string, more: Partial<BidRequest> = {}): BidRequest {
  return { id: 'r', imp: [{ id: 'i', banner: { w: 300, h: 250 }, ext: { bidder: { dcn, pos } } }], site: { page: 'https://p.example/' }, ...more };
}

describe('yahooAds adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['a dcn and a pos', { dcn: '8a9690ab01717182962182bb50ce0007', pos: 'header' }],
      ['an unknown key', { dcn: 'd', pos: 'p', note: 1 }],
    ],
    invalid: [
      ['no pos', { dcn: 'd' }],
      ['no dcn', { pos: 'p' }],
      ['an empty dcn', { dcn: '', pos: 'p' }],
      ['an empty pos', { dcn: 'd', pos: '' }],
      ['a numeric pos', { dcn: 'd', pos: 1 }],
      ['a non-object', 'd'],
    ],
  });

  describe('endpoint', () => {
    it('sends every call to the configured endpoint, whatever the params say', () => {
      for (const value of HOSTILE) {
        const { requests } = bidder().makeRequests(request(value, value), testRequestInfo('yahooAds'));
        expect(requests.map((r) => r.uri), value).to.deep.equal(['https://s2shb.ssp.yahoo.com/admax/bid/partners/PBS']);
      }
    });
  });

  describe('regs promotion', () => {
    it('reports an unreadable regs.ext as a warning (code 0, as Prebid Server writes a warning without a code) and still sends', () => {
      const { requests, errors, warnings } = bidder().makeRequests(request('d', 'p', { regs: { ext: [1] as unknown as Record<string, unknown> } }), testRequestInfo('yahooAds'));
      expect(requests).to.have.length(1);
      expect(errors).to.deep.equal([]);
      expect(warnings).to.deep.equal([{ code: 0, message: 'regs.ext is not a JSON object; skipped OpenRTB 2.6 regs promotion' }]);
    });

    it('promotes null values by dropping them, and leaves regs alone when there is nothing to move', () => {
      const promoted = bidder().makeRequests(request('d', 'p', { regs: { ext: { gpp: null, gpp_sid: null } } }), testRequestInfo('yahooAds'));
      expect((promoted.requests[0]!.body as BidRequest).regs).to.deep.equal({});
      const untouched = bidder().makeRequests(request('d', 'p', { regs: { ext: { gdpr: 1 } } }), testRequestInfo('yahooAds'));
      expect((untouched.requests[0]!.body as BidRequest).regs).to.deep.equal({ ext: { gdpr: 1 } });
    });
  });

  describe('robustness', () => {
    it('answers odd bodies without throwing', () => {
      const sent = { method: 'POST' as const, uri: 'https://s2shb.ssp.yahoo.com/admax/bid/partners/PBS', impIds: ['i'] };
      for (const body of ['null', '[]', '{"seatbid": {}}', '{"seatbid": [{"bid": [null, 3]}]}']) {
        expect(bidder().makeBids(request('d', 'p'), sent, { status: 200, body, headers: {} }).bids, body).to.deep.equal([]);
      }
    });

    it('reports an imp whose ext is not an object', () => {
      const { errors } = bidder().makeRequests({ id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 } }] }, testRequestInfo('yahooAds'));
      expect(errors).to.deep.equal([{ code: 2, message: 'imp #0: ext.bidder not provided' }]);
    });
  });
});
