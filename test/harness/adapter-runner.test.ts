import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SDK_VERSION,
  badInput,
  bidMediaType,
  defineAdapter,
  readJsonResponse,
  type AdapterManifest,
  type BidRequest,
  type BidResponse,
  type Bidder,
  type TypedBid,
} from '../../core/api/index.js';
import { run, runAdapterFixture, runAdapterFixtureDir, runFixturesWith } from './adapter-runner.js';

/**
 * A tiny bidder: one POST per imp to `https://bid.example.com/<imp tagid>`, carrying the request with only that
 * imp; an imp without a tagid is a bad-input error. Bids are typed from mtype or the imp's only media type.
 */
const honestBidder: Bidder = {
  makeRequests(request) {
    const errors = request.imp.filter((imp) => !imp.tagid).map((imp) => badInput(`imp ${imp.id}: missing tagid`));
    const requests = request.imp
      .filter((imp) => imp.tagid)
      .map((imp) => ({
        method: 'POST' as const,
        uri: `https://bid.example.com/${imp.tagid}`,
        body: { ...request, imp: [imp] },
        headers: { 'Content-Type': 'application/json' },
        impIds: [imp.id],
      }));
    return { requests, errors };
  },
  makeBids(request, _sent, response) {
    const parsed = readJsonResponse<BidResponse>(response);
    if (!parsed.value) return { bids: [], errors: parsed.error ? [parsed.error] : [] };
    const bids: TypedBid[] = [];
    for (const seatbid of parsed.value.seatbid ?? []) {
      for (const bid of seatbid.bid) {
        const type = bidMediaType(bid, request.imp.find((imp) => imp.id === bid.impid));
        if (type) bids.push({ bid, type });
      }
    }
    return { currency: parsed.value.cur, bids };
  },
};

function manifestFor(bidder: Bidder): AdapterManifest {
  return defineAdapter({
    name: 'tiny',
    version: '1.0.0',
    sdkVersion: SDK_VERSION,
    info: { endpoint: 'https://bid.example.com/', maintainer: { email: 'tiny@example.com' }, capabilities: { site: { mediaTypes: ['banner', 'video'] } } },
    paramsSchema: {},
    create: () => bidder,
  });
}

const honest = manifestFor(honestBidder);

function request(): BidRequest {
  return {
    id: 'req-1',
    imp: [
      { id: 'imp-a', tagid: 'a', banner: { format: [{ w: 300, h: 250 }] } },
      { id: 'imp-b', tagid: 'b', video: { mimes: ['video/mp4'] } },
    ],
  };
}

function call(impIndex: number, price: number): Record<string, unknown> {
  const full = request();
  const imp = full.imp[impIndex]!;
  return {
    expectedRequest: { uri: `https://bid.example.com/${imp.tagid}`, body: { ...full, imp: [imp] }, impIDs: [imp.id] },
    mockResponse: { status: 200, body: { id: 'req-1', cur: 'EUR', seatbid: [{ bid: [{ id: `bid-${imp.id}`, impid: imp.id, price }] }] } },
  };
}

/** A fixture the honest bidder passes: two calls listed in the reverse order of the imps. */
function fixture(): Record<string, any> {
  return {
    mockBidRequest: request(),
    httpCalls: [call(1, 2.5), call(0, 1.25)],
    expectedBidResponses: [
      { currency: 'EUR', bids: [{ bid: { id: 'bid-imp-b', impid: 'imp-b', price: 2.5 }, type: 'video' }] },
      { currency: 'EUR', bids: [{ bid: { id: 'bid-imp-a', impid: 'imp-a', price: 1.25 }, type: 'banner' }] },
    ],
  };
}

function check(manifest: AdapterManifest, edited: Record<string, any>): string[] {
  const outcome = runAdapterFixture(manifest, edited, 'test');
  expect(outcome.ok).to.equal(outcome.diffs.length === 0);
  return outcome.diffs;
}

describe('adapter fixture runner', () => {
  it('passes a fixture the adapter meets, matching requests regardless of order', () => {
    expect(check(honest, fixture())).to.deep.equal([]);
  });

  it('reads the fixture fields case-insensitively (some shared fixtures say "httpcalls")', () => {
    const edited = fixture();
    edited.httpcalls = edited.httpCalls;
    delete edited.httpCalls;
    expect(check(honest, edited)).to.deep.equal([]);
  });

  it('reports a wrong uri', () => {
    const edited = fixture();
    edited.httpCalls[0].expectedRequest.uri = 'https://bid.example.com/other';
    const diffs = check(honest, edited);
    expect(diffs.join('\n')).to.contain('uri: expected "https://bid.example.com/other", got "https://bid.example.com/b"');
  });

  it('reports a body difference by path', () => {
    const edited = fixture();
    edited.httpCalls[1].expectedRequest.body.imp[0].banner.format[0].w = 728;
    expect(check(honest, edited).join('\n')).to.contain('body.imp[0].banner.format[0].w: expected 728, got 300');
  });

  it('reports a wrong impIDs set', () => {
    const edited = fixture();
    edited.httpCalls[0].expectedRequest.impIDs = ['imp-b', 'imp-x'];
    expect(check(honest, edited).join('\n')).to.contain('impIDs: expected ["imp-b","imp-x"], got ["imp-b"]');
  });

  it('compares headers only when the fixture lists them, names ignoring case, Go-style value lists allowed', () => {
    const edited = fixture();
    edited.httpCalls[0].expectedRequest.headers = { 'content-type': ['application/json'] };
    expect(check(honest, edited)).to.deep.equal([]);
    edited.httpCalls[0].expectedRequest.headers = { 'Content-Type': ['text/plain'] };
    expect(check(honest, edited).join('\n')).to.contain('headers.content-type[0]: expected "text/plain", got "application/json"');
  });

  it('reports a wrong price', () => {
    const edited = fixture();
    edited.expectedBidResponses[1].bids[0].bid.price = 9.99;
    expect(check(honest, edited).join('\n')).to.contain('bidResponses[1].bids[0].bid.price: expected 9.99, got 1.25');
  });

  it('reports a wrong currency, type and seat', () => {
    const edited = fixture();
    edited.expectedBidResponses[0].currency = 'USD';
    edited.expectedBidResponses[0].bids[0].type = 'banner';
    edited.expectedBidResponses[0].bids[0].seat = 'someone-else';
    const text = check(honest, edited).join('\n');
    expect(text).to.contain('bidResponses[0].currency: expected USD, got EUR');
    expect(text).to.contain('bidResponses[0].bids[0].type: expected "banner", got "video"');
    expect(text).to.contain('bidResponses[0].bids[0].seat: expected "someone-else", got "tiny"');
  });

  it('reports an expected HTTP call the adapter did not make', () => {
    const edited = fixture();
    delete edited.mockBidRequest.imp[1].tagid;
    edited.expectedMakeRequestsErrors = [{ value: 'imp imp-b: missing tagid', comparison: 'literal' }];
    const text = check(honest, edited).join('\n');
    expect(text).to.contain('makeRequests: expected 2 HTTP calls, got 1');
    expect(text).to.contain('httpCalls[0]: no produced request matches');
  });

  it('compares makeRequests errors literally, by regex and by prefix', () => {
    const edited = fixture();
    edited.mockBidRequest.imp.push({ id: 'imp-c', banner: {} });
    for (const expected of [
      { value: 'imp imp-c: missing tagid', comparison: 'literal' },
      { value: '^imp imp-[a-z]: missing', comparison: 'regex' },
      { value: 'imp imp-c:', comparison: 'startswith' },
    ]) {
      edited.expectedMakeRequestsErrors = [expected];
      expect(check(honest, edited), expected.comparison).to.deep.equal([]);
    }
    edited.expectedMakeRequestsErrors = [{ value: 'imp imp-d: missing tagid', comparison: 'literal' }];
    expect(check(honest, edited).join('\n')).to.contain('makeRequests error[0]: expected (literal) "imp imp-d: missing tagid"');
    edited.expectedMakeRequestsErrors = [];
    expect(check(honest, edited).join('\n')).to.contain('makeRequests: expected 0 errors, got 1');
  });

  it('checks makeBids errors and treats a no-bid as no bid response', () => {
    const edited = fixture();
    edited.httpCalls[0].mockResponse = { status: 500 };
    edited.httpCalls[1].mockResponse = { status: 204 };
    edited.expectedBidResponses = [];
    edited.expectedMakeBidsErrors = [{ value: 'Unexpected status code: 500', comparison: 'startswith' }];
    expect(check(honest, edited)).to.deep.equal([]);
    edited.expectedMakeBidsErrors = [];
    expect(check(honest, edited).join('\n')).to.contain('makeBids: expected 0 errors, got 1');
  });

  describe('Protected Audience configs (fledgeauctionconfigs)', () => {
    /** The honest bidder, also returning the configs listed in the answer's `ext.configs`, under the name `tiny`. */
    const configuring = manifestFor({
      makeRequests: honestBidder.makeRequests,
      makeBids(req, sent, response) {
        const result = honestBidder.makeBids(req, sent, response);
        const configs = (JSON.parse(response.body || '{}') as { ext?: { configs?: Array<{ impid: string; config: unknown }> } }).ext?.configs;
        return configs ? { ...result, fledgeAuctionConfigs: configs.map(({ impid, config }) => ({ impId: impid, adapter: 'tiny', config })) } : result;
      },
    });
    const configs = [
      { impid: 'imp-a', config: { seller: 'https://a.example' } },
      { impid: 'imp-b', config: [1, 'two'] },
    ];
    /** The fixture, its second call answering with no bid but two configs. */
    function withConfigs(): Record<string, any> {
      const edited = fixture();
      edited.httpCalls[1].mockResponse.body = { id: 'req-1', ext: { configs } };
      edited.expectedBidResponses[1] = { bids: [], fledgeauctionconfigs: [...configs].reverse().map((config) => ({ ...config, bidder: 'tiny' })) };
      return edited;
    }

    it('compares them as a set, and keeps an answer with configs and no bid as a response of its own', () => {
      expect(check(configuring, withConfigs())).to.deep.equal([]);
    });

    it('reports a config that differs, one missing and one not expected', () => {
      const edited = withConfigs();
      edited.expectedBidResponses[1].fledgeauctionconfigs[0].config = [1, 'three'];
      const text = check(configuring, edited).join('\n');
      expect(text).to.contain('bidResponses[1].fledgeauctionconfigs: expected {"impid":"imp-b","bidder":"tiny","config":[1,"three"]}, not returned');
      expect(text).to.contain('bidResponses[1].fledgeauctionconfigs: unexpected {"impid":"imp-b","bidder":"tiny","config":[1,"two"]}');
      const unexpected = withConfigs();
      delete unexpected.expectedBidResponses[1].fledgeauctionconfigs[0].bidder;
      expect(check(configuring, unexpected).join('\n')).to.contain('expected {"impid":"imp-b","config":[1,"two"]}, not returned');
    });

    it('fails an adapter that returns no config where the fixture expects some', () => {
      const diffs = check(honest, withConfigs());
      expect(diffs.join('\n')).to.contain('expected 2 bid responses with bids, got 1');
      const withBid = withConfigs();
      withBid.httpCalls[1].mockResponse = call(0, 1.25).mockResponse;
      withBid.expectedBidResponses[1].currency = 'EUR';
      withBid.expectedBidResponses[1].bids = fixture().expectedBidResponses[1].bids;
      expect(check(honest, withBid).join('\n')).to.contain('bidResponses[1].fledgeauctionconfigs: expected {"impid":"imp-b"');
    });
  });

  it('catches an adapter that mutates the request it was given', () => {
    const mutating = manifestFor({
      makeRequests(req, info) {
        req.imp[0]!.tagid = 'changed';
        return honestBidder.makeRequests(req, info);
      },
      makeBids: honestBidder.makeBids,
    });
    expect(check(mutating, fixture()).join('\n')).to.contain('the adapter mutated its input: mockBidRequest.imp[0].tagid: expected "a", got "changed"');
  });

  it('catches a mutation made while parsing bids', () => {
    const mutating = manifestFor({
      makeRequests: honestBidder.makeRequests,
      makeBids(req, sent, response) {
        delete req.imp[1]!.video;
        return honestBidder.makeBids(req, sent, response);
      },
    });
    expect(check(mutating, fixture()).join('\n')).to.contain('the adapter mutated its input: mockBidRequest.imp[1].video: missing');
  });

  it('reports an adapter that throws instead of returning errors, without throwing itself', () => {
    const throwing = manifestFor({
      makeRequests() {
        throw new TypeError('boom');
      },
      makeBids() {
        throw new TypeError('bang');
      },
    });
    const text = check(throwing, fixture()).join('\n');
    expect(text).to.contain('makeRequests threw: boom');
    expect(text).to.contain('makeBids for httpCalls[0] threw: bang');
  });

  it('reports a malformed fixture as a failure', () => {
    expect(runAdapterFixture(honest, { httpCalls: [] }, 'broken').diffs).to.deep.equal(['fixture: mockBidRequest must be an object']);
    expect(runAdapterFixture(honest, 'not an object', 'broken').ok).to.equal(false);
  });

  it('runs a folder of fixtures, one outcome per file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gavel-runner-'));
    try {
      writeFileSync(join(dir, 'a-good.json'), JSON.stringify(fixture()));
      const wrong = fixture();
      wrong.httpCalls[0].expectedRequest.uri = 'https://elsewhere.example.com/';
      writeFileSync(join(dir, 'b-wrong.json'), JSON.stringify(wrong));
      writeFileSync(join(dir, 'c-garbled.json'), '{ nope');
      const outcomes = runFixturesWith(honest, dir);
      expect(outcomes.map((o) => [o.name, o.ok])).to.deep.equal([['a-good.json', true], ['b-wrong.json', false], ['c-garbled.json', false]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pins the random draws the test host names (randomInt63), and gives none when it names none', () => {
    const drawing: AdapterManifest = { ...honest, create: (_config, deps) => ({
      makeRequests: (req) => ({ requests: [{ method: 'POST', uri: `https://bid.example.com/${deps.randomInt63?.() ?? 'none'}`, body: req, impIds: [req.imp[0]!.id] }], errors: [] }),
      makeBids: () => ({ bids: [], errors: [] }),
    }) };
    const fixture = (drawn: string) => ({
      mockBidRequest: { id: 'r', imp: [{ id: 'i', banner: {} }] },
      httpCalls: [{ expectedRequest: { uri: `https://bid.example.com/${drawn}`, body: { id: 'r', imp: [{ id: 'i', banner: {} }] } }, mockResponse: { status: 204 } }],
    });
    expect(runAdapterFixture(drawing, fixture('10'), 'f', { randomInt63: 10 }).diffs).to.deep.equal([]);
    expect(runAdapterFixture(drawing, fixture('9223372036854775807'), 'f', { randomInt63: '9223372036854775807' }).diffs).to.deep.equal([]);
    expect(runAdapterFixture(drawing, fixture('none'), 'f', {}).diffs).to.deep.equal([]);
  });

  it('runs fixtures below amp/, video/ and videosupplemental/ as auctions of those endpoints, and pins the clock the test host names', () => {
    // One call whose URI names the endpoint the auction came in on and the time the adapter's clock told at create.
    const clocked: AdapterManifest = { ...honest, create: (_config, deps) => ({
      makeRequests: (req, info) => ({ requests: [{ method: 'POST', uri: `https://bid.example.com/${info.endpoint}/${deps.now!()}`, body: req, impIds: [req.imp[0]!.id] }], errors: [] }),
      makeBids: () => ({ bids: [], errors: [] }),
    }) };
    const at = (endpoint: string, time: number) => ({
      mockBidRequest: { id: 'r', imp: [{ id: 'i', banner: {} }] },
      httpCalls: [{ expectedRequest: { uri: `https://bid.example.com/${endpoint}/${time}`, body: { id: 'r', imp: [{ id: 'i', banner: {} }] } }, mockResponse: { status: 204 } }],
    });
    const noon = Date.parse('2021-06-25T10:00:00Z');
    const root = mkdtempSync(join(tmpdir(), 'gavel-runner-'));
    try {
      for (const [folder, endpoint] of [['supplemental', 'auction'], ['amp', 'amp'], ['video', 'video'], ['videosupplemental', 'video']]) {
        mkdirSync(join(root, folder));
        writeFileSync(join(root, folder, 'f.json'), JSON.stringify(at(endpoint!, noon)));
      }
      const host = { clock: '2021-06-25T10:00:00Z' };
      expect(runFixturesWith(clocked, root, host).map((o) => [o.name, o.diffs])).to.deep.equal([
        [join('amp', 'f.json'), []], [join('supplemental', 'f.json'), []], [join('video', 'f.json'), []], [join('videosupplemental', 'f.json'), []],
      ]);
      expect(runFixturesWith(clocked, join(root, 'video'), host)[0]!.ok, 'the folder run alone').to.equal(true);
      expect(runFixturesWith(clocked, join(root, 'amp'))[0]!.ok, 'no pinned clock').to.equal(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('fails cleanly on an unknown adapter or missing arguments', async () => {
    const [unknown] = await runAdapterFixtureDir('no-such-bidder', '.');
    expect(unknown!.ok).to.equal(false);
    expect(unknown!.diffs[0]).to.contain('cannot load adapter "no-such-bidder"');
    const [traversal] = await runAdapterFixtureDir('../core', '.');
    expect(traversal!.ok).to.equal(false);
    const [usage] = await run([]);
    expect(usage!.diffs[0]).to.contain('usage:');
  });
});
