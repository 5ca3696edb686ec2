import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { BidRequest, Imp } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import smaato from '../index.js';
import { bannerMarkup, nativeMarkup, ttlSeconds } from '../responses.js';
import { createSmaatoBidder } from '../smaato.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = readTestHost('smaato');
const ENDPOINT = smaato.info.endpoint!;
const NOW = 1_700_000_000_000;
const bidder = createSmaatoBidder(testBidderConfig('smaato', ENDPOINT), () => NOW);

function videoImp(id: string, params: Record<string, unknown>, ext: Record<string, unknown> = {}): Imp {
  return { id, video: { mimes: ['video/mp4'], ext: { skip: 1 } }, tagid: 'old', ext: { bidder: params, ...ext } };
}

describe('smaato adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(smaato, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(smaato, {
    valid: [
      ['a publisher with an ad space', { publisherId: '1100042525', adspaceId: '130563103' }],
      ['a publisher with an ad break', { publisherId: '1100042525', adbreakId: '400000001' }],
      ['both ad space and ad break', { publisherId: 'p', adspaceId: 's', adbreakId: 'b' }],
    ],
    invalid: [
      ['no publisher', { adspaceId: '130563103' }],
      ['neither ad space nor ad break', { publisherId: 'p' }],
      ['a numeric publisher id', { publisherId: 1100042525, adspaceId: 's' }],
      ['a numeric ad space id', { publisherId: 'p', adspaceId: 130563103 }],
      ['a numeric ad break id', { publisherId: 'p', adbreakId: 4 }],
      ['null', null],
    ],
  });

  describe('ad pods (the video endpoint)', () => {
    const request: BidRequest = {
      id: 'pod-req',
      app: { bundle: 'com.example.tv', publisher: { name: 'TV' } },
      imp: [
        videoImp('1_1', { publisherId: 'pub', adbreakId: 'break-1' }, { gpid: '/pod/1' }),
        videoImp('1_2', { publisherId: 'ignored', adbreakId: 'ignored' }, { gpid: '/pod/1b' }),
        { id: '2_1', banner: { w: 1, h: 1 }, ext: { bidder: { publisherId: 'pub', adbreakId: 'x' } } },
        videoImp('3_1', { publisherId: 'pub', adspaceId: 'space' }),
        videoImp('4', { publisherId: 'pub2', adbreakId: 'break-4' }),
      ],
    };
    const { requests, errors } = bidder.makeRequests(request, testRequestInfo('smaato', 'video'));

    it('sends one call per pod, in the order pods first appear', () => {
      expect(requests.map((call) => call.impIds)).to.deep.equal([['1_1', '1_2'], ['4']]);
      expect(errors).to.deep.equal([
        { code: 2, message: 'Invalid MediaType. Smaato only supports Video for AdPod.' },
        { code: 2, message: 'Missing adbreakId parameter.' },
      ]);
    });

    it("takes publisher and ad break from the pod's first imp, numbers the imps and marks them adpod", () => {
      const body = requests[0]!.body as BidRequest;
      expect(body.app).to.deep.equal({ bundle: 'com.example.tv', publisher: { id: 'pub' } });
      expect(body.ext).to.deep.equal({ client: 'prebid_server_1.2' });
      expect(body.imp).to.deep.equal([
        { id: '1_1', tagid: 'break-1', video: { mimes: ['video/mp4'], sequence: 1, ext: { context: 'adpod' } }, ext: { gpid: '/pod/1' } },
        { id: '1_2', tagid: 'break-1', video: { mimes: ['video/mp4'], sequence: 2, ext: { context: 'adpod' } } },
      ]);
      expect(request.imp[0]!.tagid).to.equal('old');
    });

    it('reports a pod without a publisher id', () => {
      const result = bidder.makeRequests({ ...request, imp: [videoImp('9_1', { adbreakId: 'b' })] }, testRequestInfo('smaato', 'video'));
      expect(result.requests).to.deep.equal([]);
      expect(result.errors).to.deep.equal([{ code: 2, message: 'Missing publisherId parameter.' }]);
    });
  });

  describe('markup and expiry', () => {
    it('counts the expiry from the clock, truncating to whole seconds and never below zero', () => {
      expect(ttlSeconds(String(NOW + 90_999), () => NOW)).to.equal(90);
      expect(ttlSeconds(String(NOW - 5_000), () => NOW)).to.equal(0);
      expect(ttlSeconds(' 12', () => NOW)).to.equal(300);
      expect(ttlSeconds(undefined, () => NOW)).to.equal(300);
    });

    it('reads X-Smt-Expires as Go reads an int64, beyond 2^53 too', () => {
      expect(ttlSeconds('9007199254740993', () => NOW)).to.equal(9_005_499_254_740);
      expect(ttlSeconds('+9007199254741999', () => NOW)).to.equal(9_005_499_254_741);
      expect(ttlSeconds('-9007199254740993', () => NOW)).to.equal(0);
      expect(ttlSeconds('9223372036854775808', () => NOW)).to.equal(300);
    });

    it('passes native markup on as Go marshals a json.RawMessage: compact and HTML-safe, numbers and escapes as written', () => {
      const adm = '{ "native" : { "ver": "1.1", "price" : 0.10 }, "NATIVE": {"link": {"url": "https://shop.example/?a=1&b=2"}, "w": 3E2, "t": "na\\u00efve <i>\\n"} }';
      expect(nativeMarkup(adm)).to.equal('{"link":{"url":"https://shop.example/?a=1\\u0026b=2"},"w":3E2,"t":"na\\u00efve \\u003ci\\u003e\\n"}');
      expect(nativeMarkup('{"native": [1.0, -0.0e-1, "\\ud83d\\ude00"]}')).to.equal('[1.0,-0.0e-1,"\\ud83d\\ude00"]');
      expect(nativeMarkup('{"other": 1}')).to.equal('null');
      expect(nativeMarkup('[{"native": 1}]')).to.equal(undefined);
    });

    it('sets exp from X-Smt-Expires', () => {
      const body = JSON.stringify({ seatbid: [{ bid: [{ id: 'b', impid: 'i', price: 1, adm: '<a/>' }] }] });
      const headers = { 'x-smt-adtype': 'Img', 'x-smt-expires': String(NOW + 60_000) };
      const { bids } = bidder.makeBids({ id: 'r', imp: [] }, { method: 'POST', uri: ENDPOINT, impIds: [] }, { status: 200, body, headers });
      expect(bids[0]!.bid.exp).to.equal(60);
    });

    it('leaves banner markup alone without click trackers, and unwraps native markup', () => {
      expect(bannerMarkup('<a/>', [])).to.equal('<a/>');
      expect(nativeMarkup('{"native":{"ver":"1.2"}}')).to.equal('{"ver":"1.2"}');
      expect(nativeMarkup('not json')).to.equal(undefined);
    });
  });

  describe('endpoint', () => {
    it('never takes the URL from params', () => {
      for (const hostile of ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb']) {
        const request: BidRequest = { id: 'r', site: { page: 'p' }, imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { publisherId: hostile, adspaceId: hostile } } }] };
        expect(bidder.makeRequests(request, testRequestInfo('smaato')).requests.map((call) => call.uri)).to.deep.equal([ENDPOINT]);
      }
    });
  });
});
