import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { BidderErrorCode, type BidRequest, type Bidder, type RequestData } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import openx from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const PLATFORM = '8b1e1a4c-2a1a-4c4e-8a0a-1b2c3d4e5f60';
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function createBidder(): Bidder {
  return openx.create!(testBidderConfig('openx', openx.info.endpoint!), { logger: silentLogger });
}

const bannerRequest: BidRequest = { id: 'r', imp: [{ id: 'i1', banner: { w: 300, h: 250 }, ext: { bidder: { unit: '1', delDomain: 'a.openx.net' } } }] };
const sentCall: RequestData = { method: 'POST', uri: 'http://rtb.openx.net/prebid', impIds: ['i1'] };
const answer = (bid: Record<string, unknown>) => JSON.stringify({ seatbid: [{ bid: [{ id: 'b', impid: 'i1', price: 1, ...bid }] }] });

describe('openx adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(openx, fixturesDir)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(openx, {
    valid: [
      ['a string unit with a delivery domain', { unit: '539439964', delDomain: 'se-demo-d.openx.net' }],
      ['a numeric unit with a platform', { unit: 539439964, platform: PLATFORM }],
      ['an upper-case platform uuid', { unit: '1', platform: PLATFORM.toUpperCase() }],
      ['both domain and platform', { unit: '1', delDomain: 'a.openx.net', platform: PLATFORM }],
      ['a floor as a number', { unit: '1', delDomain: 'a.openx.net', customFloor: 0.5 }],
      ['a floor as a decimal string', { unit: '1', delDomain: 'a.openx.net', customFloor: '0.40' }],
      ['a zero floor', { unit: '1', delDomain: 'a.openx.net', customFloor: 0 }],
      ['custom params', { unit: '1', delDomain: 'a.openx.net', customParams: { foo: 'bar', n: [1] } }],
      ['a two-letter top-level label', { unit: '1', delDomain: 'pub-d.openx.io' }],
    ],
    invalid: [
      ['no unit', { delDomain: 'a.openx.net' }],
      ['neither domain nor platform', { unit: '1' }],
      ['a unit with letters', { unit: '12a', delDomain: 'a.openx.net' }],
      ['an empty unit', { unit: '', delDomain: 'a.openx.net' }],
      ['a negative unit', { unit: -1, delDomain: 'a.openx.net' }],
      ['a boolean unit', { unit: true, delDomain: 'a.openx.net' }],
      ['a domain without a dot', { unit: '1', delDomain: 'openx' }],
      ['a domain with a four-letter ending', { unit: '1', delDomain: 'a.openx.info' }],
      ['a domain with an empty label', { unit: '1', delDomain: 'a..openx.net' }],
      ['a domain with an underscore', { unit: '1', delDomain: 'a_b.openx.net' }],
      ['a domain with a path', { unit: '1', delDomain: 'evil.com/x.net' }],
      ['a platform that is not a uuid', { unit: '1', platform: 'PLATFORM' }],
      ['a negative floor', { unit: '1', delDomain: 'a.openx.net', customFloor: -0.1 }],
      ['a floor string with letters', { unit: '1', delDomain: 'a.openx.net', customFloor: '1.5usd' }],
      ['a floor string ending in a dot', { unit: '1', delDomain: 'a.openx.net', customFloor: '1.' }],
      ['custom params as a string', { unit: '1', delDomain: 'a.openx.net', customParams: 'foo=bar' }],
      ['a non-object', ['unit']],
    ],
  });

  describe('bid meta from bid.ext', () => {
    const bidder = createBidder();
    const metaOf = (ext: unknown) => bidder.makeBids(bannerRequest, sentCall, { status: 200, body: answer({ ext }), headers: {} }).bids[0]?.meta;

    it('reads dsp_id and brand_id (integers in strings) and buyer_id (a string) as network, brand and advertiser ids', () => {
      expect(metaOf({ dsp_id: '17', brand_id: '300', buyer_id: '42' })).to.deep.equal({ networkId: 17, brandId: 300, advertiserId: 42 });
    });

    it('leaves zero ids out, and gives no meta without a positive id', () => {
      expect(metaOf({ dsp_id: '5', buyer_id: 'not-a-number' })).to.deep.equal({ networkId: 5 });
      expect(metaOf({ dsp_id: '0', brand_id: '0', buyer_id: '0' })).to.equal(undefined);
      expect(metaOf({ other: 1 })).to.equal(undefined);
    });

    it('matches the ids ignoring case, the last of a name winning, as Go decodes them into its struct', () => {
      expect(metaOf({ DSP_ID: '17', Brand_Id: '300', BUYER_ID: '42' })).to.deep.equal({ networkId: 17, brandId: 300, advertiserId: 42 });
      expect(metaOf({ dsp_id: '5', Dsp_Id: '6' })).to.deep.equal({ networkId: 6 });
      expect(metaOf({ dsp_id: '5', Buyer_Id: 9 })).to.equal(undefined);
    });

    it('gives no meta when an id has the wrong JSON type, as Go fails to decode it', () => {
      expect(metaOf({ dsp_id: 17, brand_id: '3' })).to.equal(undefined);
      expect(metaOf({ brand_id: '3', buyer_id: 42 })).to.equal(undefined);
      expect(metaOf('dsp_id=17')).to.equal(undefined);
    });
  });

  describe('error codes', () => {
    const bidder = createBidder();
    const codes = (status: number, body: string) => bidder.makeBids(bannerRequest, sentCall, { status, body, headers: {} }).errors?.map((e) => e.code);

    it('reports a 400 as bad input, other non-200 statuses as bad server responses, undecodable bodies as the decoder\'s error', () => {
      expect(codes(400, '')).to.deep.equal([BidderErrorCode.BadInput]);
      expect(codes(500, '')).to.deep.equal([BidderErrorCode.BadServerResponse]);
      expect(codes(202, answer({}))).to.deep.equal([BidderErrorCode.BadServerResponse]);
      expect(codes(200, '{')).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      expect(codes(200, '[]')).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      expect(codes(204, '')).to.equal(undefined);
    });

    it('reports unreadable params as bad input, per imp', () => {
      const request: BidRequest = { id: 'r', imp: [{ id: 'x', banner: {}, ext: { bidder: { unit: { n: 1 }, delDomain: 'a.openx.net' } } }, bannerRequest.imp[0]!] };
      const result = bidder.makeRequests(request, testRequestInfo('openx'));
      expect(result.errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.BadInput]);
      expect(result.requests.map((r) => r.impIds)).to.deep.equal([['i1']]);
    });
  });
});
