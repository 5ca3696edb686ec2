import { testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { BidderErrorCode, readJsonBeside, type BidRequest, type Bidder, type Imp, type RequestData } from '../../../core/api/index.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixtureDir = fileURLToPath(new URL('./fixtures', import.meta.url));
/** ix ships no endpoint (each host gets its own); its fixtures are written for this test host. */
const testHost = readJsonBeside<{ endpoint: string }>(import.meta.url, './host-config.json');
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function createBidder(extra: Record<string, unknown> = {}, version?: string): Bidder {
  if (!manifest.create) throw new Error('the ix manifest has no create()');
  const host = { externalUrl: 'http://hosturl.com', ...(version === undefined ? {} : { version }) };
  return manifest.create({ name: 'ix', endpoint: 'https://ix.example/pbs', extra, ortbVersion: '2.6', host }, { logger: silentLogger });
}

function bannerRequest(siteId: string): BidRequest {
  return { id: 'r1', imp: [{ id: 'i1', banner: { w: 300, h: 250 }, ext: { bidder: { siteId } } }], site: { page: 'https://a.example/' } };
}

const sentCall: RequestData = { method: 'POST', uri: 'https://ix.example/pbs', impIds: ['i1'] };

describe('ix adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixtureDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['siteId', { siteId: '569749' }],
      ['siteid spelling', { siteid: '569749' }],
      ['siteID spelling', { siteID: '569749' }],
      ['with a size', { siteId: '1', size: [300, 250] }],
      ['with a slot id', { siteId: '1', sid: 'top-slot' }],
      ['with an unknown extra field', { siteId: '1', note: 'kept' }],
    ],
    invalid: [
      ['no site id', {}],
      ['only a slot id', { sid: 'top-slot' }],
      ['empty site id', { siteId: '' }],
      ['numeric site id', { siteId: 569749 }],
      ['two spellings at once', { siteId: '1', siteid: '1' }],
      ['all three spellings', { siteId: '1', siteid: '1', siteID: '1' }],
      ['one-number size', { siteId: '1', size: [300] }],
      ['three-number size', { siteId: '1', size: [300, 250, 1] }],
      ['fractional size', { siteId: '1', size: [300.5, 250] }],
      ['size as text', { siteId: '1', size: '300x250' }],
      ['empty slot id', { siteId: '1', sid: '' }],
      ['numeric slot id', { siteId: '1', sid: 7 }],
      ['null', null],
      ['a string', '569749'],
      ['an array', [{ siteId: '1' }]],
    ],
  });

  describe('host settings', () => {
    it('uses the configured endpoint and reports the configured platform and version without build suffix', () => {
      const { requests } = createBidder({ pbsPlatform: 'java', pbsVersion: '2.3.1-3f9c2ab' }).makeRequests(bannerRequest('42'), testRequestInfo('ix'));
      expect(requests).to.have.length(1);
      expect(requests[0]!.uri).to.equal('https://ix.example/pbs');
      const body = requests[0]!.body as BidRequest;
      expect(body.ext?.ixdiag).to.deep.equal({ pbsp: 'java', pbsv: '2.3.1' });
    });

    it("reports the host's Gavel version as Prebid Server reports its own, unless extra.pbsVersion says otherwise", () => {
      const pbsv = (bidder: Bidder) => ((bidder.makeRequests(bannerRequest('42'), testRequestInfo('ix')).requests[0]!.body as BidRequest).ext?.ixdiag as { pbsv: string }).pbsv;
      expect(pbsv(createBidder({}, '0.1.0-rc.1'))).to.equal('0.1.0');
      expect(pbsv(createBidder({ pbsVersion: '9.9.9' }, '0.1.0'))).to.equal('9.9.9');
      expect(pbsv(createBidder({}))).to.equal('unknown');
    });
  });

  describe('error codes', () => {
    const bidder = createBidder();
    const request = bannerRequest('42');

    it('reports a 400 as bad input', () => {
      const result = bidder.makeBids(request, sentCall, { status: 400, body: '', headers: {} });
      expect(result.bids).to.deep.equal([]);
      expect(result.errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.BadInput]);
    });

    it('reports other statuses and undecodable bodies as bad server responses', () => {
      for (const response of [
        { status: 500, body: '', headers: {} },
        { status: 201, body: '{}', headers: {} },
        { status: 200, body: '{', headers: {} },
      ]) {
        const result = bidder.makeBids(request, sentCall, response);
        expect(result.errors?.map((e) => e.code), response.body).to.deep.equal([BidderErrorCode.BadServerResponse]);
      }
    });

    it('reports bids it cannot type as unknown errors, and a response ext it cannot read as a decode failure dropping every bid', () => {
      const untyped = bidder.makeBids(request, sentCall, { status: 200, body: '{"seatbid":[{"bid":[{"impid":"nowhere","price":1}]}]}', headers: {} });
      expect(untyped.errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.Unknown]);
      const badExt = bidder.makeBids(request, sentCall, { status: 200, body: '{"seatbid":[{"bid":[{"impid":"i1","price":1}]}],"ext":[1]}', headers: {} });
      expect(badExt.bids).to.deep.equal([]);
      expect(badExt.errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      const both = bidder.makeBids(request, sentCall, { status: 200, body: '{"seatbid":[{"bid":[{"impid":"nowhere","price":1}]}],"ext":{"protectedAudienceAuctionConfigs":5}}', headers: {} });
      expect(both.errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.Unknown, BidderErrorCode.FailedToUnmarshal]);
    });

    it('reports undecodable params as decode failures (Prebid Server passes the decoder error on)', () => {
      for (const ext of [{ bidder: [] }, {}, { bidder: { siteId: 5 } }, { bidder: { size: 'big' } }, 'imp ext']) {
        const result = bidder.makeRequests({ id: 'r', imp: [{ id: 'x', ext } as unknown as Imp] }, testRequestInfo('ix', 'auction'));
        expect(result.requests, JSON.stringify(ext)).to.deep.equal([]);
        expect(result.errors?.map((e) => e.code), JSON.stringify(ext)).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      }
    });

    it('reports an undecodable request ext as a decode failure and still sends the call', () => {
      for (const ext of [{ ixdiag: 5 }, { prebid: { channel: { version: 7 } } }, { prebid: 'x' }]) {
        const result = bidder.makeRequests({ ...request, ext } as unknown as BidRequest, testRequestInfo('ix', 'auction'));
        expect(result.requests, JSON.stringify(ext)).to.have.length(1);
        expect(result.errors?.map((e) => e.code), JSON.stringify(ext)).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      }
    });
  });

  describe('odd input', () => {
    const bidder = createBidder();

    it('never throws on malformed requests', () => {
      const oddRequests = [
        { id: 'r' },
        { id: 'r', imp: null },
        { id: 'r', imp: [null, 5, 'imp', []] },
        { id: 'r', imp: [{ id: 'a', ext: null }], site: 'not an object', ext: 'not an object' },
        { id: 'r', imp: [{ id: 'a', banner: { format: 'wide' }, ext: { bidder: { siteId: '1' } } }], app: { publisher: 'x' } },
        { id: 'r', imp: [{ id: 'a', banner: { format: [null] }, ext: { bidder: { siteId: '1' } } }], ext: { prebid: { channel: 7 } } },
      ];
      for (const request of oddRequests) {
        expect(() => bidder.makeRequests(request as unknown as BidRequest, testRequestInfo('ix', 'auction')), JSON.stringify(request)).not.to.throw();
      }
    });

    it('reads a null imp as Go does, an empty imp whose missing params are reported while the others go ahead', () => {
      const request = { id: 'r', imp: [null, { id: 'a', banner: { w: 1, h: 1 }, ext: { bidder: { siteId: '1' } } }] } as unknown as BidRequest;
      const result = bidder.makeRequests(request, testRequestInfo('ix', 'auction'));
      expect(result.requests.map((call) => call.impIds)).to.deep.equal([['a']]);
      expect(result.errors?.map((e) => e.message)).to.deep.equal(['expect { or n, but found \u0000']);
    });

    it('never throws on malformed responses, and reports each', () => {
      const request = bannerRequest('42');
      const oddBodies = ['[]', '"text"', '{"seatbid":[{"bid":[null, 3]}]}', '{"seatbid":[{"bid":[{"impid":"i1","price":"1"}]}]}'];
      for (const body of oddBodies) {
        const run = () => bidder.makeBids(request, sentCall, { status: 200, body, headers: {} });
        expect(run, body).not.to.throw();
        expect(run().bids, body).to.deep.equal([]);
        expect(run().errors, body).to.have.length.greaterThan(0);
      }
    });

    it('reads null as Go does: a null body or seatbid is no bid and no error', () => {
      for (const body of ['null', '{"seatbid":[null]}', '{"seatbid":null}']) {
        expect(bidder.makeBids(bannerRequest('42'), sentCall, { status: 200, body, headers: {} }), body).to.deep.equal({ currency: 'USD', bids: [], errors: [] });
      }
    });

    it('leaves native markup it cannot read untouched', () => {
      const request: BidRequest = { id: 'r', imp: [{ id: 'n', native: { request: '{}' }, ext: { bidder: { siteId: '1' } } }] };
      for (const adm of ['<html/>', '[1,2]', '{"native":{"eventtrackers":[]}}', '{"eventtrackers":"none"}']) {
        const body = JSON.stringify({ seatbid: [{ bid: [{ id: 'b', impid: 'n', price: 1, adm }] }] });
        const result = bidder.makeBids(request, sentCall, { status: 200, body, headers: {} });
        expect(result.bids.map((b) => b.bid.adm), adm).to.deep.equal([adm]);
      }
    });
  });
});
