import { testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { BidderErrorCode, type BidRequest, type Bidder } from '../../../core/api/index.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import { rawMemberText } from '../json.js';
import manifest from '../index.js';

const fixtureDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function createBidder(endpoint: string): Bidder {
  if (!manifest.create) throw new Error('the pubmatic manifest has no create()');
  return manifest.create({ name: 'pubmatic', endpoint, extra: {}, ortbVersion: '2.6', host: { externalUrl: 'http://hosturl.com' } }, { logger: silentLogger });
}

describe('pubmatic adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixtureDir)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['only publisherId', { publisherId: '156209' }],
      ['every param', {
        publisherId: '156209', adSlot: 'slot@300x250', pmzoneid: 'drama,sport', kadfloor: '0.5', dctr: 'k=v1,v2|k2=v',
        acat: ['IAB1'], wrapper: { profile: 5123, version: 1 }, keywords: [{ key: 'genre', value: ['rock'] }],
      }],
      ['a wrapper without version', { publisherId: '1', wrapper: { profile: 5 } }],
      ['an empty acat', { publisherId: '1', acat: [] }],
      ['an unknown extra field', { publisherId: '1', note: 'kept' }],
    ],
    invalid: [
      ['no publisherId', { adSlot: 'slot' }],
      ['numeric publisherId', { publisherId: 156209 }],
      ['numeric adSlot', { publisherId: '1', adSlot: 5 }],
      ['numeric kadfloor', { publisherId: '1', kadfloor: 0.5 }],
      ['numeric pmzoneid', { publisherId: '1', pmzoneid: 7 }],
      ['dctr as an object', { publisherId: '1', dctr: { k: 'v' } }],
      ['acat as text', { publisherId: '1', acat: 'IAB1' }],
      ['acat with a number', { publisherId: '1', acat: ['IAB1', 2] }],
      ['a wrapper without profile', { publisherId: '1', wrapper: { version: 1 } }],
      ['a wrapper profile as text', { publisherId: '1', wrapper: { profile: '5' } }],
      ['a fractional wrapper version', { publisherId: '1', wrapper: { profile: 5, version: 1.5 } }],
      ['empty keywords', { publisherId: '1', keywords: [] }],
      ['a keyword without value', { publisherId: '1', keywords: [{ key: 'k' }] }],
      ['a keyword with no values', { publisherId: '1', keywords: [{ key: 'k', value: [] }] }],
      ['a keyword with a numeric value', { publisherId: '1', keywords: [{ key: 'k', value: [1] }] }],
      ['a keyword without key', { publisherId: '1', keywords: [{ value: ['v'] }] }],
      ['null', null],
      ['a string', '156209'],
    ],
  });

  describe('host settings', () => {
    it('sends to the configured endpoint', () => {
      const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { publisherId: '1' } } }] };
      const { requests } = createBidder('https://pubmatic.example/translator').makeRequests(request, testRequestInfo('pubmatic', 'auction'));
      expect(requests.map((call) => call.uri)).to.deep.equal(['https://pubmatic.example/translator']);
    });

    it('sends a wrapper bidder code only when the request has an ext: the first alias the request declares, else pubmatic', () => {
      const imp = { id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { publisherId: '1', wrapper: { profile: 3 } } } };
      const extOf = (request: BidRequest, bidder: string) => (createBidder('https://pubmatic.example/t').makeRequests(request, testRequestInfo(bidder)).requests[0]!.body as { ext: unknown }).ext;
      const aliases = { 'pubmatic-alias': 'pubmatic' };
      expect(extOf({ id: 'r', imp: [imp] }, 'pubmatic')).to.deep.equal({ wrapper: { profile: 3 } });
      expect(extOf({ id: 'r', imp: [imp], ext: {} }, 'pubmatic')).to.deep.equal({ wrapper: { profile: 3, biddercode: 'pubmatic' } });
      expect(extOf({ id: 'r', imp: [imp], ext: { prebid: { aliases } } }, 'pubmatic-alias')).to.deep.equal({ wrapper: { profile: 3, biddercode: 'pubmatic-alias' } });
      // Go takes the alias whatever it aliases (the core only ever passes the alias the bidder runs under).
      expect(extOf({ id: 'r', imp: [imp], ext: { prebid: { aliases: { other: 'appnexus' } } } }, 'pubmatic')).to.deep.equal({ wrapper: { profile: 3, biddercode: 'other' } });
    });

    it("reads request-level params as the core narrows them: the bidder's own params, not a map keyed by bidder", () => {
      const request: BidRequest = {
        id: 'r',
        imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { publisherId: '1' } } }],
        ext: { prebid: { bidderparams: { pubmatic: { acat: ['IAB7'] }, acat: ['IAB1'] } } },
      };
      const { requests } = createBidder('https://pubmatic.example/t').makeRequests(request, testRequestInfo('pubmatic'));
      expect((requests[0]!.body as { ext: unknown }).ext).to.deep.equal({ wrapper: { biddercode: 'pubmatic' }, acat: ['IAB1'] });
    });
  });

  describe('request error codes', () => {
    const bidder = createBidder('https://pubmatic.example/t');
    const valid = { id: 'ok', banner: { w: 1, h: 1 }, ext: { bidder: { publisherId: '1' } } };
    const codesOf = (request: BidRequest) => bidder.makeRequests(request, testRequestInfo('pubmatic', 'auction')).errors?.map((e) => e.code);

    it("drops imps whose ext or params do not decode with the decoder's error (code 14), and its own refusals as generic errors", () => {
      const imps = [
        { id: 'a', banner: { w: 1, h: 1 }, ext: { bidder: { publisherId: 1 } } },
        { id: 'b', banner: { w: 1, h: 1 }, ext: {} },
        { id: 'c', banner: { w: 1, h: 1 }, ext: { bidder: { publisherId: '1', keywords: 'k' } } },
        { id: 'd', banner: { w: 1, h: 1 }, ext: { gpid: 5, bidder: { publisherId: '1' } } },
        { id: 'e', banner: { w: 1, h: 1 }, ext: { bidder: { publisherId: '1', wrapper: { profile: 'x' } } } },
        { id: 'f', banner: { w: 1, h: 1 }, ext: { bidder: { publisherId: '1', adSlot: 'slot@big' } } },
        { id: 'g', audio: {}, ext: { bidder: { publisherId: '1' } } },
        valid,
      ];
      const result = bidder.makeRequests({ id: 'r', imp: imps } as unknown as BidRequest, testRequestInfo('pubmatic', 'auction'));
      expect(result.requests).to.have.length(1);
      const { FailedToUnmarshal, Unknown } = BidderErrorCode;
      expect(result.errors?.map((e) => e.code)).to.deep.equal([FailedToUnmarshal, FailedToUnmarshal, FailedToUnmarshal, FailedToUnmarshal, Unknown, Unknown, Unknown]);
    });

    it('fails the request on an undecodable request ext: generic for ext.prebid (Go wraps it), code 14 for the bidder params', () => {
      expect(codesOf({ id: 'r', imp: [valid], ext: { prebid: { aliases: 5 } } } as unknown as BidRequest)).to.deep.equal([BidderErrorCode.Unknown]);
      for (const bidderparams of [5, { wrapper: { profile: 'x' } }, { wrapper: 5 }, { acat: 'IAB1' }]) {
        const request = { id: 'r', imp: [valid], ext: { prebid: { bidderparams } } } as unknown as BidRequest;
        expect(codesOf(request), JSON.stringify(bidderparams)).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      }
    });
  });

  describe('bids', () => {
    const bidder = createBidder('https://pubmatic.example/t');
    const sent = { method: 'POST' as const, uri: 'https://pubmatic.example/t', impIds: ['i'] };
    const answer = (status: number, bid: Record<string, unknown>) =>
      bidder.makeBids({ id: 'r', imp: [] }, sent, { status, body: JSON.stringify({ seatbid: [{ bid: [{ id: 'b', impid: 'i', price: 1, ...bid }] }] }), headers: {} });

    it('reports a 400 as bad input, other non-200 statuses as unknown errors, undecodable bodies as the decoder\'s error, a bid without mtype as a bad server response', () => {
      expect(answer(400, {}).errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.BadInput]);
      expect(answer(500, {}).errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.Unknown]);
      expect(answer(200, { price: 'x' }).errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      expect(answer(200, { ext: {} }).errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.BadServerResponse]);
    });

    it("keeps a bid whose ext does not decode and reports the decoder's error (code 14); unreadable native markup is a generic error", () => {
      for (const ext of [undefined, 5, { marketplace: 1 }, { prebiddealpriority: 1.5 }, { video: { duration: 'x' } }]) {
        const result = answer(200, { mtype: 1, ext });
        expect(result.bids, JSON.stringify(ext)).to.have.length(1);
        expect(result.errors?.map((e) => e.code), JSON.stringify(ext)).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      }
      const native = answer(200, { mtype: 4, ext: {}, adm: 'not json' });
      expect(native.bids).to.have.length(1);
      expect(native.errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.Unknown]);
    });

    it('states the media type as meta, video for in-banner video, and nothing without a decodable ext', () => {
      expect(answer(200, { mtype: 1, ext: {} }).bids[0]!.meta).to.deep.equal({ mediaType: 'banner' });
      expect(answer(200, { mtype: 1, ext: { ibv: true } }).bids[0]!.meta).to.deep.equal({ mediaType: 'video' });
      expect(answer(200, { mtype: 1, ext: null }).bids[0]!.meta).to.equal(undefined);
      expect(answer(200, { mtype: 2, ext: { ibv: 'yes' } }).bids[0]!.meta).to.equal(undefined);
    });
  });

  describe('robustness', () => {
    const bidder = createBidder('https://pubmatic.example/t');

    it('reports errors instead of throwing on odd requests', () => {
      const odd = [{ id: 'x' }, { id: 'x', imp: [null, 5] }, { id: 'x', imp: [{ id: 'i', banner: { format: 'no' }, ext: { bidder: { publisherId: '1', keywords: 'k' } } }] }];
      for (const request of odd as unknown as BidRequest[]) {
        const result = bidder.makeRequests(request, testRequestInfo('pubmatic', 'auction'));
        expect(result.requests).to.deep.equal([]);
      }
    });

    it('answers odd bodies with no bids and never throws', () => {
      const sent = { method: 'POST' as const, uri: 'https://pubmatic.example/t', impIds: ['i'] };
      for (const body of ['null', '[]', '{"seatbid": {}}', '{"seatbid": [{"bid": [null, "x"]}]}', '{"seatbid":[{"bid":[{"impid":"i","price":1,"mtype":9}]}]}']) {
        expect(bidder.makeBids({ id: 'r', imp: [] }, sent, { status: 200, body, headers: {} }).bids).to.deep.equal([]);
      }
    });
  });

  describe('rawMemberText', () => {
    it('returns the exact text of a top-level member, escapes and spacing included', () => {
      expect(rawMemberText('{"a": {"b": "x\\/y"} , "native" : [1, {"c": "}"}] }', 'native')).to.equal('[1, {"c": "}"}]');
      expect(rawMemberText('{"a": "\\"native\\"", "native": 5}', 'native')).to.equal('5');
    });

    it('takes the first of duplicate members, as jsonparser.Get does', () => {
      expect(rawMemberText('{"native": {"a": 1}, "native": {"b": 2}}', 'native')).to.equal('{"a": 1}');
    });

    it('ignores nested members of the same name and non-objects', () => {
      expect(rawMemberText('{"outer": {"native": 1}}', 'native')).to.equal(undefined);
      expect(rawMemberText('["native"]', 'native')).to.equal(undefined);
      expect(rawMemberText('{"native": ', 'native')).to.equal(undefined);
    });
  });
});
