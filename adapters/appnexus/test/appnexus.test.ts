import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { BidderErrorCode, compileEndpoint, type BidRequest, type Bidder, type RequestData } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import appnexus from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
/** Prebid Server's appnexus test host: a fake random generator drawing 10, so ad pod ids are "10". */
const testHost = readTestHost('appnexus');
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function createBidder(extra: Record<string, unknown> = {}): Bidder {
  return appnexus.create!(testBidderConfig('appnexus', appnexus.info.endpoint!, { extra }), { logger: silentLogger });
}

describe('appnexus adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(appnexus, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(appnexus, {
    valid: [
      ['placement_id as a number', { placement_id: 123 }],
      ['placement_id as a string', { placement_id: '123' }],
      ['the old placementId', { placementId: 123 }],
      ['inv_code with member', { inv_code: 'abc', member: '958' }],
      ['invCode with a numeric member', { invCode: 'abc', member: 958 }],
      ['keywords as a string', { placement_id: 1, keywords: 'a=b,c' }],
      ['keywords as key/value entries', { placement_id: 1, keywords: [{ key: 'a', value: ['b'] }, { key: 'c' }] }],
      ['keywords as an object', { placement_id: 1, keywords: { a: ['b', 'c'], d: [] } }],
      ['every optional param', {
        placement_id: 1, traffic_source_code: 'ts', reserve: 0.5, position: 'below', use_pmt_rule: true, use_payment_rule: false,
        generate_ad_pod_id: true, private_sizes: [{ w: 300, h: 250 }], ext_inv_code: 'x', external_imp_id: 'y',
      }],
      ['placement plus inventory code spelled the other way (one identity each side)', { placement_id: 1, inv_code: 'a', invCode: 'b', member: 2 }],
    ],
    invalid: [
      ['no identity at all', { keywords: 'a=b' }],
      ['inv_code without member', { inv_code: 'abc' }],
      ['both placement spellings', { placement_id: 1, placementId: 1 }],
      ['placement and inventory code together', { placement_id: 1, inv_code: 'abc', member: 958 }],
      ['placementId with invCode and member', { placementId: 1, invCode: 'abc', member: 958 }],
      ['a fractional placement id', { placement_id: 1.5 }],
      ['a boolean placement id', { placement_id: true }],
      ['an empty keyword string', { placement_id: 1, keywords: '' }],
      ['an empty keyword list', { placement_id: 1, keywords: [] }],
      ['a keyword entry without key', { placement_id: 1, keywords: [{ value: ['b'] }] }],
      ['a keyword entry with an empty value list', { placement_id: 1, keywords: [{ key: 'a', value: [] }] }],
      ['a keyword object with a non-list value', { placement_id: 1, keywords: { a: 'b' } }],
      ['an unknown position', { placement_id: 1, position: 'middle' }],
      ['a string reserve', { placement_id: 1, reserve: '0.5' }],
      ['a private size without h', { placement_id: 1, private_sizes: [{ w: 300 }] }],
      ['a non-object', 'placement 1'],
    ],
  });

  describe('behaviour outside the auction endpoint', () => {
    const bidder = createBidder({ platform_id: '7' });
    const podImp = (id: string, generate: boolean) => ({ id, video: { mimes: ['video/mp4'] }, ext: { bidder: { placement_id: 1, generate_ad_pod_id: generate } } });
    const appnexusExts = (requests: RequestData[]) => requests.map((r) => (r.body as { ext: { appnexus: Record<string, unknown> } }).ext.appnexus);

    it('marks AMP requests and uses the host platform id', () => {
      const { requests } = bidder.makeRequests({ id: 'r', imp: [podImp('a', false)] }, testRequestInfo('appnexus', 'amp'));
      expect((requests[0]!.body as { ext: unknown }).ext).to.deep.equal({ appnexus: { hb_source: 7, is_amp: 1 } });
    });

    it('on the video endpoint without pod ids, keeps the imps together and adds one to the platform id', () => {
      const request = { id: 'r', imp: [podImp('1_0', false), podImp('2_0', false), podImp('1_1', false)] };
      const { requests, errors } = bidder.makeRequests(request, testRequestInfo('appnexus', 'video'));
      expect(errors).to.deep.equal([]);
      expect(requests.map((r) => r.impIds)).to.deep.equal([['1_0', '2_0', '1_1']]);
      expect(appnexusExts(requests)).to.deep.equal([{ hb_source: 8 }]);
    });

    it('with pod ids asked for, sends each pod in requests of its own (10 imps at most), all with the pod\'s id', () => {
      const pod1 = Array.from({ length: 11 }, (_, i) => podImp(`1_${i}`, true));
      const { requests, errors } = bidder.makeRequests({ id: 'r', imp: [...pod1, podImp('2_0', true)] }, testRequestInfo('appnexus', 'video'));
      expect(errors).to.deep.equal([]);
      expect(requests.map((r) => r.impIds.length)).to.deep.equal([10, 1, 1]);
      const [first, second, third] = appnexusExts(requests);
      expect(first!.adpod_id).to.be.a('string').and.match(/^\d+$/);
      expect(second!.adpod_id).to.equal(first!.adpod_id);
      expect(third!.adpod_id).to.be.a('string').and.not.equal(first!.adpod_id);
      expect(first!.hb_source).to.equal(8);
    });

    it('draws pod ids from the host\'s random generator when it gives one, one draw per pod', () => {
      let draws = 0n;
      const pinned = appnexus.create!(testBidderConfig('appnexus', appnexus.info.endpoint!), { logger: silentLogger, randomInt63: () => ++draws * 1000000000000n });
      const { requests } = pinned.makeRequests({ id: 'r', imp: [podImp('1_0', true), podImp('2_0', true), podImp('1_1', true)] }, testRequestInfo('appnexus', 'video'));
      expect(requests.map((r) => r.impIds)).to.deep.equal([['1_0', '1_1'], ['2_0']]);
      expect(appnexusExts(requests).map((ext) => ext.adpod_id)).to.deep.equal(['1000000000000', '2000000000000']);
    });

    it('refuses the whole request when imps disagree on pod ids', () => {
      const request = { id: 'r', imp: [podImp('1_0', true), podImp('2_0', false)] };
      const { requests, errors } = bidder.makeRequests(request, testRequestInfo('appnexus', 'video'));
      expect(requests).to.deep.equal([]);
      expect(errors).to.deep.equal([{ code: BidderErrorCode.Unknown, message: 'generate ad pod option should be same for all pods in request' }]);
    });

    it('reads the host platform id as Go\'s Atoi does: 0 leaves hb_source out, an unreadable one is the default 5', () => {
      const hbSource = (platformId: unknown) => appnexusExts(createBidder({ platform_id: platformId }).makeRequests({ id: 'r', imp: [podImp('a', false)] }, testRequestInfo('appnexus')).requests)[0]!.hb_source;
      expect(hbSource('0')).to.equal(undefined);
      expect(hbSource('abc')).to.equal(5);
      expect(hbSource(undefined)).to.equal(5);
      expect(hbSource(12)).to.equal(12);
    });
  });

  describe('error codes', () => {
    const bidder = createBidder();
    const request: BidRequest = { id: 'r', imp: [{ id: 'a', banner: { w: 1, h: 1 }, ext: { bidder: { placement_id: 1 } } }] };
    const sent: RequestData = { method: 'POST', uri: 'http://ib.adnxs.com/openrtb2', impIds: ['a'] };
    const codes = (status: number, body: string) => bidder.makeBids(request, sent, { status, body, headers: {} }).errors?.map((e) => e.code);

    it('reports a 400 as bad input, other non-200 statuses as bad server responses, an undecodable body or bid ext as the decoder\'s error, the rest as unknown errors', () => {
      expect(codes(400, '')).to.deep.equal([BidderErrorCode.BadInput]);
      expect(codes(201, '{}')).to.deep.equal([BidderErrorCode.BadServerResponse]);
      expect(codes(200, 'oops')).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      expect(codes(200, JSON.stringify({ seatbid: [{ bid: [{ id: 'b', impid: 'a', price: 1, ext: { appnexus: { bid_ad_type: 9 } } }] }] }))).to.deep.equal([BidderErrorCode.Unknown]);
      expect(codes(200, JSON.stringify({ seatbid: [{ bid: [{ id: 'b', impid: 'a', price: 1, ext: { appnexus: { bid_ad_type: 'x' } } }] }] }))).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
    });

    it('reports missing identity as bad input and undecodable params as the decoder\'s error', () => {
      const imps = [{ id: 'x', banner: {}, ext: { bidder: {} } }, { id: 'y', banner: {}, ext: { bidder: { placement_id: 'p' } } }];
      expect(bidder.makeRequests({ id: 'r', imp: imps }, testRequestInfo('appnexus')).errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.BadInput, BidderErrorCode.FailedToUnmarshal]);
    });

    it('stops the request on a request ext, ext.appnexus or source.ext Go cannot decode, with the decoder\'s error', () => {
      for (const extra of [{ ext: { appnexus: 'x' } }, { ext: { appnexus: { is_amp: 'x' } } }, { source: { ext: 'x' } }] as Array<Partial<BidRequest>>) {
        const { requests, errors } = bidder.makeRequests({ ...request, ...extra }, testRequestInfo('appnexus'));
        expect(requests, JSON.stringify(extra)).to.deep.equal([]);
        expect(errors?.map((e) => e.code), JSON.stringify(extra)).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      }
    });
  });

  describe('member in the URL', () => {
    const bidder = createBidder();
    const endpoint = compileEndpoint(appnexus.info.endpoint!);
    for (const member of ['evil.example', '127.0.0.1:9', 'a@evil.example', 'a#b', 'a/b', '%2F', 'a\nb', '..']) {
      it(`keeps member ${JSON.stringify(member)} in the query of the configured host`, () => {
        const request: BidRequest = { id: 'r', imp: [{ id: 'a', banner: {}, ext: { bidder: { member, inv_code: 'top' } } }] };
        const { requests } = bidder.makeRequests(request, testRequestInfo('appnexus'));
        expect(requests).to.have.length(1);
        expect(endpoint.allows(requests[0]!.uri)).to.equal(true);
        expect(new URL(requests[0]!.uri).searchParams.get('member_id')).to.equal(member);
      });
    }
  });
});
