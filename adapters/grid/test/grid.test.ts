import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import grid from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = readTestHost('grid');
const ENDPOINT = grid.info.endpoint!;
const bidder = grid.create!(testBidderConfig('grid', ENDPOINT), { logger: console });

function requestWith(params: unknown, more: Partial<BidRequest> = {}): BidRequest {
  return { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: params } }], ...more };
}

describe('grid adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(grid, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(grid, {
    valid: [
      ['a uid', { uid: 1 }],
      ['a uid with keywords', { uid: 1, keywords: { site: { pub: [{ name: 'p', topic: ['a'] }] }, user: {} } }],
      ['no uid (the schema requires none; the adapter refuses the imp)', {}],
      ['other keyword sections', { uid: 1, keywords: { other: 'x' } }],
    ],
    invalid: [
      ['a uid as text', { uid: '1' }],
      ['a fractional uid', { uid: 1.5 }],
      ['keywords as text', { uid: 1, keywords: 'sports' }],
      ['a site section that is not an object', { uid: 1, keywords: { site: ['a'] } }],
      ['a user section that is not an object', { uid: 1, keywords: { user: 'a' } }],
      ['a string', 'uid'],
    ],
  });

  describe('keywords', () => {
    it('sends no ext when there are no keywords and the request had no ext', () => {
      const body = bidder.makeRequests(requestWith({ uid: 1 }), testRequestInfo('grid')).requests[0]!.body as BidRequest;
      expect(body).to.not.have.property('ext');
    });

    it('puts the items of later sources first for one publisher', () => {
      const request = requestWith(
        { uid: 1, keywords: { user: { ortb2: [{ name: 'from-imp', k: ['v'] }] } } },
        { user: { keywords: 'a,b' }, ext: { keywords: { user: { ortb2: [{ name: 'from-ext', k: ['w'] }] } } } },
      );
      const body = bidder.makeRequests(request, testRequestInfo('grid')).requests[0]!.body as BidRequest;
      const items = (body.ext as { keywords: { user: { ortb2: Array<{ name: string }> } } }).keywords.user.ortb2;
      expect(items.map((item) => item.name)).to.deep.equal(['keywords', 'from-imp', 'from-ext']);
      expect(request.ext).to.deep.equal({ keywords: { user: { ortb2: [{ name: 'from-ext', k: ['w'] }] } } });
    });
  });

  describe('bids', () => {
    it("names Grid's demand source as the bid's network", () => {
      const body = JSON.stringify({ seatbid: [{ bid: [
        { id: 'a', impid: 'i', price: 1, ext: { bidder: { grid: { demandSource: 'dsp-7' } } } },
        { id: 'b', impid: 'i', price: 1, ext: { bidder: { grid: { demandSource: 7 } } } },
        { id: 'c', impid: 'i', price: 1 },
      ] }] });
      const { bids } = bidder.makeBids(requestWith({ uid: 1 }), { method: 'POST', uri: ENDPOINT, impIds: ['i'] }, { status: 200, body, headers: {} });
      expect(bids.map((bid) => bid.meta)).to.deep.equal([{ networkName: 'dsp-7' }, undefined, undefined]);
    });
  });

  describe('error codes', () => {
    it("reports an imp ext or params Go cannot decode with the decoder's error (14), a missing uid as bad input (2)", () => {
      const request: BidRequest = {
        id: 'r',
        imp: [
          { id: 'a', banner: {}, ext: { bidder: { uid: '1' } } },
          { id: 'b', banner: {}, ext: { bidder: 'x' } },
          { id: 'c', banner: {}, ext: { prebid: 1, bidder: { uid: 1 } } },
          { id: 'd', banner: {}, ext: { bidder: {} } },
          { id: 'e', banner: {}, ext: { bidder: { uid: 1 } } },
        ],
      };
      const { requests, errors } = bidder.makeRequests(request, testRequestInfo('grid'));
      expect(requests.map((call) => call.impIds)).to.deep.equal([['e']]);
      expect(errors?.map((e) => e.code)).to.deep.equal([14, 14, 14, 2]);
    });

    it("names what does not decode as Go's decoder does in Grid's structs, which embed OpenRTB's", () => {
      const cases: Array<[unknown, string]> = [
        [{ cur: 5 }, 'cannot unmarshal Cur: expects " or n, but found 5'],
        [{ seatbid: 7 }, 'cannot unmarshal grid.GridResponse.SeatBid: decode slice: expect [ or n, but found 7'],
        [{ seatbid: [7] }, 'cannot unmarshal []grid.GridSeatBid: expect { or n, but found 7'],
        [{ seatbid: [{ seat: 5, bid: [] }] }, 'cannot unmarshal Seat: expects " or n, but found 5'],
        [{ seatbid: [{ bid: 7 }] }, 'cannot unmarshal grid.GridSeatBid.Bid: decode slice: expect [ or n, but found 7'],
        [{ seatbid: [{ bid: [7] }] }, 'cannot unmarshal []grid.GridBid: expect { or n, but found 7'],
        [{ seatbid: [{ bid: [{ id: 'a', impid: 'i', price: 'x' }] }] }, 'cannot unmarshal Price: invalid number'],
        [{ seatbid: [{ bid: [{ id: 'a', impid: 'i', price: 1, adomain: [5] }] }] }, 'cannot unmarshal []string: expects " or n, but found 5'],
      ];
      for (const [answer, text] of cases) {
        const { errors } = bidder.makeBids(requestWith({ uid: 1 }), { method: 'POST', uri: ENDPOINT, impIds: ['i'] }, { status: 200, body: JSON.stringify(answer), headers: {} });
        expect(errors?.map((e) => [e.code, e.message]), JSON.stringify(answer)).to.deep.equal([[14, text]]);
      }
    });

    it("reports a content_type that is not a string as the decoder's error (14)", () => {
      const body = JSON.stringify({ seatbid: [{ bid: [{ id: 'a', impid: 'i', price: 1, content_type: 1 }] }] });
      const { bids, errors } = bidder.makeBids(requestWith({ uid: 1 }), { method: 'POST', uri: ENDPOINT, impIds: ['i'] }, { status: 200, body, headers: {} });
      expect(bids).to.deep.equal([]);
      expect(errors?.map((e) => e.code)).to.deep.equal([14]);
    });
  });

  describe('endpoint', () => {
    it('never takes the URL from params', () => {
      for (const hostile of ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb']) {
        const request = requestWith({ uid: 1, keywords: { site: { [hostile]: [{ name: hostile, k: [hostile] }] } } });
        expect(bidder.makeRequests(request, testRequestInfo('grid')).requests.map((call) => call.uri)).to.deep.equal([ENDPOINT]);
      }
    });
  });
});
