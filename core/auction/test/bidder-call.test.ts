import { expect } from 'chai';
import type { Bidder, BidderRequest, BidRequest, RequestData } from '../../api/index.js';
import { conversionFailure } from '../../currency/index.js';
import type { BidderEntry } from '../../bidders/catalog.js';
import { CallDeadlineError, type BidderTransport } from '../../bidders/transport.js';
import { callBidder, serialiseBody, type BidderCallOptions } from '../bidder-call.js';

const post = (body: unknown): RequestData => ({ method: 'POST', uri: 'http://127.0.0.1:9/b', body, impIds: [] });

describe('bidder calls: the request body as JSON', () => {
  const shapes: Array<[string, unknown]> = [
    ['a request', { id: 'r', imp: [{ id: '1', banner: { w: 300 } }], site: { page: 'p' }, tmax: 500, test: 0 }],
    ['members JSON leaves out', { id: 'r', gone: undefined, fn: () => 1, kept: null, flag: false }],
    ['numbers and booleans', { a: -0, b: Number.NaN, c: Number.POSITIVE_INFINITY, d: 1e21, e: 0.1 + 0.2, f: -5e-7, g: true, h: false, i: 2 ** 53 + 2 }],
    ['a symbol member', { id: 'r', s: Symbol('x') }],
    ['keys and strings that need escaping', { 'a"b': 'x\ny', 'é': '\u2028', '\\': ['\t'] }],
    ['integer-like keys, which JSON writes first', { b: 1, 2: 'two', a: { 1: 'one' }, 0: [] }],
    ['an object member with toJSON', { at: new Date(0), id: 'r' }],
    ['a body with its own toJSON', { id: 'r', site: { page: 'p' }, toJSON: () => ({ id: 'replaced' }) }],
    ['an empty object', {}],
    ['an array body', [{ id: 'r' }, 1]],
    ['an instance of a class', new (class Body { id = 'r'; site = { page: 'p' }; })()],
  ];
  for (const [label, body] of shapes) {
    it(`writes ${label} as JSON.stringify does`, () => {
      expect(serialiseBody(post(body), new Map())).to.equal(JSON.stringify(body));
      expect(serialiseBody(post(body))).to.equal(JSON.stringify(body));
    });
  }

  it('sends a text body as it is, and no body with GET', () => {
    expect(serialiseBody(post('{"id":"r"}'), new Map())).to.equal('{"id":"r"}');
    expect(serialiseBody({ ...post({ id: 'r' }), method: 'GET' }, new Map())).to.equal(undefined);
    expect(serialiseBody(post(undefined), new Map())).to.equal(undefined);
  });

  it("writes a branch the auction's bidders share once: a second body reuses its text", () => {
    const user = { id: 'u', eids: [{ source: 's', uids: [{ id: 'e' }] }] };
    const texts = new Map<object, string>();
    const first = serialiseBody(post({ id: 'r', imp: [{ id: '1', ext: { bidder: { p: 1 } } }], user }), texts);
    expect(first).to.equal(JSON.stringify({ id: 'r', imp: [{ id: '1', ext: { bidder: { p: 1 } } }], user }));
    expect(texts.get(user)).to.equal(JSON.stringify(user));
    // The text kept for the branch is what the next body gets: the branch is not written again.
    texts.set(user, '"kept"');
    expect(serialiseBody(post({ id: 'r', imp: [], user }), texts)).to.equal('{"id":"r","imp":[],"user":"kept"}');
  });
});

describe('bidder calls: answers the bidder layer keeps from the adapter', () => {
  const share: BidderRequest = { bidder: 'alpha', adapter: 'alpha', request: { id: 'r', imp: [{ id: 'imp-1', banner: { w: 300, h: 250 } }, { id: 'imp-2', banner: { w: 300, h: 250 } }] } };
  let readByAdapter = 0;
  const bidder: Bidder = {
    makeRequests: (request) => ({ requests: [{ method: 'POST', uri: 'https://alpha.example/bid', body: request, impIds: request.imp.map((imp) => imp.id) }] }),
    makeBids: () => {
      readByAdapter++;
      return { bids: [], errors: [{ code: 2, message: 'the adapter read it' }] };
    },
  };
  const entry = { name: 'alpha', adapter: 'alpha', info: {}, enabled: true, ortbVersion: '2.5', debugAllow: true, bidder, endpoint: { allows: () => true, template: 'https://alpha.example/bid' } } as unknown as BidderEntry;
  const options: BidderCallOptions = { endpoint: 'auction', recordCalls: false, currency: 'USD', convert: (amount) => amount, convertCurrency: (amount) => amount };
  const answering = (status: number): BidderTransport => ({ send: async () => ({ status, body: '{}', headers: {} }), close: async () => undefined });
  const failing = (err: Error & { code?: string }): BidderTransport => ({ send: async () => Promise.reject(err), close: async () => undefined });

  it('reports a status below 200 or from 400 on as Prebid Server does, without handing it to the adapter, its imps failed (100)', async () => {
    for (const status of [400, 404, 500, 503, 199]) {
      readByAdapter = 0;
      const result = await callBidder(entry, share, answering(status), Date.now() + 1000, options);
      expect(readByAdapter, `status ${status}`).to.equal(0);
      expect(result.errors).to.deep.equal([{ code: 3, message: `Server responded with failure status: ${status}. Set request.test = 1 for debugging info.` }]);
      expect(result.failedCalls).to.deep.equal([{ impIds: ['imp-1', 'imp-2'], reason: 100 }]);
    }
    for (const status of [200, 204, 302]) {
      readByAdapter = 0;
      const result = await callBidder(entry, share, answering(status), Date.now() + 1000, options);
      expect(readByAdapter, `status ${status}`).to.equal(status === 204 ? 0 : 1);
      expect(result.failedCalls).to.equal(undefined);
    }
  });

  it('names why a call that brought no answer failed: timeout 101, unreachable 103, anything else 100', async () => {
    const reasonOf = async (err: Error & { code?: string; cause?: unknown }) => (await callBidder(entry, share, failing(err), Date.now() + 1000, options)).failedCalls?.map((failed) => failed.reason);
    expect(await reasonOf(Object.assign(new Error('timed out'), { code: 'UND_ERR_HEADERS_TIMEOUT' }))).to.deep.equal([101]);
    expect(await reasonOf(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).to.deep.equal([103]);
    expect(await reasonOf(Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('getaddrinfo'), { code: 'ENOTFOUND' }) }))).to.deep.equal([103]);
    expect(await reasonOf(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).to.deep.equal([100]);
  });

  it("words a failed call as Prebid Server's Go client does: a timeout (1) as the context's deadline, anything else as a URL error (999)", async () => {
    const errorsOf = async (err: Error) => (await callBidder(entry, share, failing(err), Date.now() + 1000, options)).errors;
    expect(await errorsOf(Object.assign(new Error('timed out'), { code: 'UND_ERR_HEADERS_TIMEOUT' }))).to.deep.equal([{ code: 1, message: 'context deadline exceeded' }]);
    expect(await errorsOf(new CallDeadlineError())).to.deep.equal([{ code: 1, message: 'context deadline exceeded' }]);
    expect(await errorsOf(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 9 }))).to.deep.equal([
      { code: 999, message: 'Post "https://alpha.example/bid": dial tcp 127.0.0.1:9: connect: connection refused' },
    ]);
    expect(await errorsOf(Object.assign(new Error('connect ECONNREFUSED ::1:9'), { code: 'ECONNREFUSED', address: '::1', port: 9 }))).to.deep.equal([
      { code: 999, message: 'Post "https://alpha.example/bid": dial tcp [::1]:9: connect: connection refused' },
    ]);
    expect(await errorsOf(Object.assign(new Error('getaddrinfo ENOTFOUND alpha.example'), { code: 'ENOTFOUND', hostname: 'alpha.example' }))).to.deep.equal([
      { code: 999, message: 'Post "https://alpha.example/bid": dial tcp: lookup alpha.example: no such host' },
    ]);
    expect(await errorsOf(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }))).to.deep.equal([{ code: 999, message: 'Post "https://alpha.example/bid": EOF' }]);
  });
});

describe('bidder calls: an adapter that makes no call', () => {
  const share: BidderRequest = { bidder: 'alpha', adapter: 'alpha', request: { id: 'r', imp: [{ id: 'imp-1', banner: { w: 300, h: 250 } }] } };
  const making = (built: ReturnType<Bidder['makeRequests']>) =>
    ({ name: 'alpha', adapter: 'alpha', info: {}, enabled: true, ortbVersion: '2.5', debugAllow: true, bidder: { makeRequests: () => built, makeBids: () => ({ bids: [] }) }, endpoint: { allows: () => true, template: 'https://alpha.example/bid' } }) as unknown as BidderEntry;
  const options: BidderCallOptions = { endpoint: 'auction', recordCalls: true, currency: 'USD', convert: (amount) => amount, convertCurrency: (amount) => amount };
  const transport: BidderTransport = { send: async () => ({ status: 204, body: '', headers: {} }), close: async () => undefined };

  it("is reported as Prebid Server's FailedToRequestBids (5) when it gives no error or warning either", async () => {
    const result = await callBidder(making({ requests: [] }), share, transport, Date.now() + 1000, options);
    expect(result.errors).to.deep.equal([{ code: 5, message: 'The adapter failed to generate any bid requests, but also failed to generate an error explaining why' }]);
    expect(result.httpCalls).to.deep.equal([]);
  });

  it('keeps only what the adapter said when it said why', async () => {
    const withError = await callBidder(making({ requests: [], errors: [{ code: 2, message: 'no imp it can bid on' }] }), share, transport, Date.now() + 1000, options);
    expect(withError.errors).to.deep.equal([{ code: 2, message: 'no imp it can bid on' }]);
    const withWarning = await callBidder(making({ requests: [], warnings: [{ code: 10999, message: 'nothing to ask' }] }), share, transport, Date.now() + 1000, options);
    expect(withWarning.errors).to.deep.equal([]);
  });
});

describe('bidder calls: too little time left to make a call', () => {
  const share: BidderRequest = { bidder: 'alpha', adapter: 'alpha', request: { id: 'r', imp: [{ id: 'imp-1', banner: { w: 300, h: 250 } }, { id: 'imp-2', banner: { w: 300, h: 250 } }] } };
  const entry = {
    name: 'alpha', adapter: 'alpha', info: {}, enabled: true, ortbVersion: '2.5', debugAllow: true,
    bidder: {
      makeRequests: (request: BidRequest) => ({ requests: request.imp.map((imp) => ({ method: 'POST', uri: 'https://alpha.example/bid', body: { ...request, imp: [imp] }, impIds: [imp.id] })) }),
      makeBids: () => ({ bids: [] }),
    },
    endpoint: { allows: () => true, template: 'https://alpha.example/bid' },
  } as unknown as BidderEntry;
  const options: BidderCallOptions = { endpoint: 'auction', recordCalls: true, currency: 'USD', convert: (amount) => amount, convertCurrency: (amount) => amount, minCallTimeMs: 50 };

  it("is not made: each call is Prebid Server's TmaxTimeout (12) 'exceeded tmax duration', its imps failed (100), its debug record without answer", async () => {
    let sent = 0;
    const transport: BidderTransport = { send: async () => (sent++, { status: 204, body: '', headers: {} }), close: async () => undefined };
    const result = await callBidder(entry, share, transport, Date.now() + 20, options);
    expect(sent).to.equal(0);
    expect(result.errors).to.deep.equal([{ code: 12, message: 'exceeded tmax duration' }, { code: 12, message: 'exceeded tmax duration' }]);
    expect(result.failedCalls).to.deep.equal([{ impIds: ['imp-1'], reason: 100 }, { impIds: ['imp-2'], reason: 100 }]);
    expect(result.httpCalls.map((call) => [call.status, call.responsebody])).to.deep.equal([[0, ''], [0, '']]);
    const inTime = await callBidder(entry, share, transport, Date.now() + 1000, options);
    expect(sent).to.equal(2);
    expect(inTime.errors).to.deep.equal([]);
  });
});

describe('bidder calls: the debug record of each call', () => {
  const share: BidderRequest = { bidder: 'alpha', adapter: 'alpha', request: { id: 'r', imp: [{ id: 'imp-1', banner: { w: 300, h: 250 } }] } };
  const entryMaking = (call: RequestData) =>
    ({ name: 'alpha', adapter: 'alpha', info: {}, enabled: true, ortbVersion: '2.5', debugAllow: true, bidder: { makeRequests: () => ({ requests: [call] }), makeBids: () => ({ bids: [] }) }, endpoint: { allows: () => true, template: 'https://alpha.example/bid' } }) as unknown as BidderEntry;
  const options: BidderCallOptions = { endpoint: 'auction', recordCalls: true, currency: 'USD', convert: (amount) => amount, convertCurrency: (amount) => amount };

  it("writes Prebid Server's five members always: a GET without headers has body \"\" and headers null", async () => {
    const transport: BidderTransport = { send: async () => ({ status: 204, body: '', headers: {} }), close: async () => undefined };
    const result = await callBidder(entryMaking({ method: 'GET', uri: 'https://alpha.example/bid?x=1', impIds: ['imp-1'] }), share, transport, Date.now() + 1000, options);
    expect(result.httpCalls).to.deep.equal([{ uri: 'https://alpha.example/bid?x=1', requestbody: '', requestheaders: null, responsebody: '', status: 204 }]);
  });

  it('writes an answer with a failure status as Prebid Server does a call that failed: status 0 and an empty response body', async () => {
    const call: RequestData = { method: 'POST', uri: 'https://alpha.example/bid', body: '{"id":"r"}', impIds: ['imp-1'] };
    for (const status of [400, 500, 199]) {
      const transport: BidderTransport = { send: async () => ({ status, body: 'upstream broke', headers: {} }), close: async () => undefined };
      const result = await callBidder(entryMaking(call), share, transport, Date.now() + 1000, options);
      expect(result.httpCalls, `status ${status}`).to.deep.equal([{ uri: 'https://alpha.example/bid', requestbody: '{"id":"r"}', requestheaders: null, responsebody: '', status: 0 }]);
      expect(result.exchanges).to.deep.equal([{ status }]);
    }
    const ok: BidderTransport = { send: async () => ({ status: 200, body: '{}', headers: {} }), close: async () => undefined };
    expect((await callBidder(entryMaking(call), share, ok, Date.now() + 1000, options)).httpCalls[0]).to.include({ responsebody: '{}', status: 200 });
  });

  it('writes a call that brought no answer with status 0 and an empty response body', async () => {
    const transport: BidderTransport = { send: async () => Promise.reject(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })), close: async () => undefined };
    const call: RequestData = { method: 'POST', uri: 'https://alpha.example/bid', body: '{"id":"r"}', headers: { 'Content-Type': 'application/json' }, impIds: ['imp-1'] };
    const result = await callBidder(entryMaking(call), share, transport, Date.now() + 1000, options);
    expect(result.httpCalls).to.deep.equal([{ uri: 'https://alpha.example/bid', requestbody: '{"id":"r"}', requestheaders: { 'Content-Type': ['application/json'] }, responsebody: '', status: 0 }]);
  });
});

describe("bidder calls: a bid in a currency the auction cannot price (Prebid Server's GetRate texts)", () => {
  const share: BidderRequest = { bidder: 'alpha', adapter: 'alpha', request: { id: 'r', imp: [{ id: 'imp-1', banner: { w: 300, h: 250 } }] } };
  const answeringIn = (currency: string) =>
    ({
      name: 'alpha', adapter: 'alpha', info: {}, enabled: true, ortbVersion: '2.5', debugAllow: true,
      bidder: {
        makeRequests: (request: BidderRequest['request']) => ({ requests: [{ method: 'POST', uri: 'https://alpha.example/bid', body: request, impIds: ['imp-1'] }] }),
        makeBids: () => ({ currency, bids: [{ bid: { id: 'b1', impid: 'imp-1', price: 1 }, type: 'banner' }] }),
      },
      endpoint: { allows: () => true, template: 'https://alpha.example/bid' },
    }) as unknown as BidderEntry;
  const transport: BidderTransport = { send: async () => ({ status: 200, body: '{}', headers: {} }), close: async () => undefined };
  const pricesOnlyUsd = (amount: number, from: string, to: string) => (from.toUpperCase() === to.toUpperCase() ? amount : undefined);
  const run = (bidCurrency: string, auctionCurrency = 'USD', request: BidRequest = share.request) => {
    const options: BidderCallOptions = {
      endpoint: 'auction', recordCalls: false, currency: auctionCurrency, convert: pricesOnlyUsd, convertCurrency: (amount) => amount,
      conversionFailure: (from, to) => conversionFailure(from, to, request, 'prebid'),
    };
    return callBidder(answeringIn(bidCurrency), share, transport, Date.now() + 1000, options);
  };

  it('drops the bids of an answer in a code ISO 4217 does not have, or that is not three letters, even in the auction currency', async () => {
    for (const [bid, auction, message] of [
      ['ABC', 'USD', 'currency: tag is not a recognized currency'],
      ['ABC', 'ABC', 'currency: tag is not a recognized currency'],
      ['US', 'USD', 'currency: tag is not well-formed'],
      ['USD', 'EURO', 'currency: tag is not well-formed'],
    ] as const) {
      const result = await run(bid, auction);
      expect(result.bids, `${bid} => ${auction}`).to.deep.equal([]);
      expect(result.errors, `${bid} => ${auction}`).to.deep.equal([{ code: 999, message }]);
    }
  });

  it('names a rate not found with both codes upper-cased, and "rates are nil" when the request turned the host rates off without rates of its own', async () => {
    expect((await run('eur')).errors).to.deep.equal([{ code: 999, message: "Currency conversion rate not found: 'EUR' => 'USD'" }]);
    const noRates = { ...share.request, ext: { prebid: { currency: { usepbsrates: false } } } } as BidRequest;
    expect((await run('EUR', 'USD', noRates)).errors).to.deep.equal([{ code: 999, message: 'rates are nil' }]);
    const emptyRates = { ...share.request, ext: { prebid: { currency: { rates: {}, usepbsrates: false } } } } as BidRequest;
    expect((await run('EUR', 'USD', emptyRates)).errors).to.deep.equal([{ code: 999, message: "Currency conversion rate not found: 'EUR' => 'USD'" }]);
    expect((await run('usd')).bids).to.have.length(1);
  });
});
