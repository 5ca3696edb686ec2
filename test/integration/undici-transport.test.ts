import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { RequestData } from '../../core/api/index.js';
import { eventually } from '../support/eventually.js';
import { AuctionCalls, CallDeadlineError, HostQueueFullError, isTimeout, ResponseTooLargeError, UndiciBidderTransport } from '../../core/bidders/transport.js';
import * as undici from 'undici';
import { Agent, parseHeaders } from '../../core/bidders/undici-agent.js';

function call(method: 'GET' | 'POST', uri: string, headers?: Record<string, string>): RequestData {
  return { method, uri, headers, impIds: [] };
}

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A loopback bidder whose answer each test sets; it records the last request it was sent. */
function startBidder(): Promise<{ url: string; seen: Seen; answer: (handler: (res: ServerResponse) => void) => void; server: Server }> {
  let handler: (res: ServerResponse) => void = (res) => res.end();
  const seen: Seen = { headers: {}, body: Buffer.alloc(0) };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      Object.assign(seen, { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
      handler(res);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, answer: (next) => (handler = next), server }),
    ),
  );
}

describe('UndiciBidderTransport', () => {
  it("loads undici's own Agent and header parser, not look-alikes (the paths are undici's internals)", () => {
    expect(Agent).to.equal(undici.Agent);
    expect(parseHeaders).to.equal(undici.util.parseHeaders);
  });

  let bidder: Awaited<ReturnType<typeof startBidder>>;
  let transport: UndiciBidderTransport;

  before(async () => {
    bidder = await startBidder();
    transport = new UndiciBidderTransport({ connectionsPerHost: 4, keepAliveTimeoutMs: 1000 }, 1024);
  });
  after(async () => {
    await transport.close();
    bidder.server.closeAllConnections();
    await new Promise((resolve) => bidder.server.close(resolve));
  });

  it('sends the body with a JSON content type and reads status, body and headers (repeated ones joined)', async () => {
    bidder.answer((res) => {
      res.setHeader('x-seen', ['one', 'two']);
      res.setHeader('content-type', 'application/json');
      res.end('{"id":"r"}');
    });
    const answer = await transport.send(call('POST', `${bidder.url}/bid?a=1`), '{"id":"q"}', { timeoutMs: 1000 });
    expect(answer.status).to.equal(200);
    expect(answer.body).to.equal('{"id":"r"}');
    expect(answer.headers['x-seen']).to.equal('one, two');
    expect(bidder.seen.url).to.equal('/bid?a=1');
    expect(bidder.seen.headers['content-type']).to.equal('application/json;charset=utf-8');
    expect(bidder.seen.body.toString()).to.equal('{"id":"q"}');
  });

  it('keeps the adapter\'s own content type, and gzips the body when the bidder asks for it', async () => {
    bidder.answer((res) => res.end('ok'));
    await transport.send(call('POST', `${bidder.url}/gz`, { 'content-type': 'text/plain' }), 'hello', { timeoutMs: 1000, gzip: true });
    expect(bidder.seen.headers['content-type']).to.equal('text/plain');
    expect(bidder.seen.headers['content-encoding']).to.equal('gzip');
    expect(gunzipSync(bidder.seen.body).toString()).to.equal('hello');
  });

  it('reads a 204 as an empty body, drops a UTF-8 byte-order mark, and joins a body sent in several chunks', async () => {
    bidder.answer((res) => {
      res.statusCode = 204;
      res.end();
    });
    expect(await transport.send(call('GET', `${bidder.url}/nobid`), undefined, { timeoutMs: 1000 })).to.include({ status: 204, body: '' });
    expect(bidder.seen.method).to.equal('GET');

    bidder.answer((res) => res.end(Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('{"a":"é"}')])));
    expect((await transport.send(call('POST', `${bidder.url}/bom`), '{}', { timeoutMs: 1000 })).body).to.equal('{"a":"é"}');

    bidder.answer((res) => {
      res.write('{"part":');
      setTimeout(() => res.end('"two"}'), 20);
    });
    expect((await transport.send(call('POST', `${bidder.url}/chunks`), '{}', { timeoutMs: 1000 })).body).to.equal('{"part":"two"}');
  });

  it('rejects with a timeout when the bidder does not answer in time', async function () {
    // undici checks its headers timeout on a coarse clock (about every half second), so the bidder stays silent longer.
    this.timeout(5000);
    bidder.answer((res) => setTimeout(() => res.end('late'), 3000));
    const failure = await transport.send(call('POST', `${bidder.url}/slow`), '{}', { timeoutMs: 50 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isTimeout(failure)).to.equal(true);
  });

  it("leaves a call the auction ends itself to the auction: no undici timer ends it first", async function () {
    // Past undici's coarse clock: with its timers on, this call would have failed as the one above does.
    this.timeout(5000);
    bidder.answer((res) => setTimeout(() => res.end('late but in time'), 1500));
    const calls = new AuctionCalls();
    const answer = await transport.send(call('POST', `${bidder.url}/slow`), '{}', { timeoutMs: 50, deadline: Date.now() + 4000, calls });
    expect(answer.body).to.equal('late but in time');
  });

  it('rejects an answer over the size limit with ResponseTooLargeError', async () => {
    bidder.answer((res) => res.end('x'.repeat(4096)));
    const failure = await transport.send(call('POST', `${bidder.url}/big`), '{}', { timeoutMs: 1000 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(ResponseTooLargeError);
    expect((failure as Error).message).to.contain('1024 bytes');
  });

  it('rejects, never throws, when the call cannot be made', async () => {
    const refused = transport.send(call('POST', 'http://127.0.0.1:1/refused'), '{}', { timeoutMs: 1000 });
    const failure = await refused.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(Error);
    expect(isTimeout(failure)).to.equal(false);
    const malformed = await transport.send(call('POST', 'http://[bad/'), '{}', { timeoutMs: 1000 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(malformed).to.be.instanceOf(Error);
  });
});

describe('UndiciBidderTransport: every call bounded by its auction', () => {
  /** A bidder that counts the requests it receives and answers each per its path: /drip, /hang, or /ok. */
  let server: Server;
  let url: string;
  let received: string[];
  const open = new Set<ServerResponse>();

  before(async () => {
    server = createServer((req, res) => {
      received.push(req.url ?? '');
      req.resume();
      open.add(res);
      res.on('close', () => open.delete(res));
      if (req.url === '/drip') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{');
        const timer = setInterval(() => res.write(' '), 20);
        res.on('close', () => clearInterval(timer));
      } else if (req.url === '/ok') res.end('{}');
      // /hang: never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => (received = []));
  afterEach(() => {
    for (const res of open) res.destroy();
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (err: unknown) => err);

  it('aborts a body that drips past the deadline (undici\'s idle timeout alone would wait), and frees the connection', async () => {
    const sheds: string[] = [];
    const transport = new UndiciBidderTransport({ connectionsPerHost: 1, keepAliveTimeoutMs: 1000, maxPendingPerHost: 1 }, 1 << 20, (reason) => sheds.push(reason));
    try {
      const failure = await failureOf(transport.send(call('GET', `${url}/drip`), undefined, { timeoutMs: 10_000, deadline: Date.now() + 150 }));
      expect(failure).to.be.instanceOf(CallDeadlineError);
      expect(isTimeout(failure)).to.equal(true);
      expect(sheds).to.deep.equal(['deadline']);
      expect(transport.openCalls(url)).to.equal(0);
      // The only connection was closed with the aborted call: the next call gets a fresh one and its answer.
      expect((await transport.send(call('GET', `${url}/ok`), undefined, { timeoutMs: 1000 })).body).to.equal('{}');
    } finally {
      await transport.close();
    }
  });

  it('ends every call of an auction still out when the auction ends them', async () => {
    const transport = new UndiciBidderTransport({ connectionsPerHost: 4, keepAliveTimeoutMs: 1000 }, 1 << 20);
    try {
      const calls = new AuctionCalls();
      const pending = [failureOf(transport.send(call('GET', `${url}/hang`), undefined, { timeoutMs: 60_000, calls })), failureOf(transport.send(call('GET', `${url}/drip`), undefined, { timeoutMs: 60_000, calls }))];
      await new Promise((resolve) => setTimeout(resolve, 50));
      calls.end();
      for (const failure of await Promise.all(pending)) expect(failure).to.be.instanceOf(CallDeadlineError);
      expect(transport.openCalls(url)).to.equal(0);
    } finally {
      await transport.close();
    }
  });

  it('never sends a queued call whose deadline passed while it waited for a connection', async () => {
    const transport = new UndiciBidderTransport({ connectionsPerHost: 1, keepAliveTimeoutMs: 1000, maxPendingPerHost: 4 }, 1 << 20);
    try {
      const first = new AuctionCalls();
      const held = failureOf(transport.send(call('GET', `${url}/hang`), undefined, { timeoutMs: 60_000, calls: first }));
      const second = new AuctionCalls();
      const queued = failureOf(transport.send(call('GET', `${url}/ok?queued`), undefined, { timeoutMs: 60_000, calls: second }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The second auction stops waiting while its call is queued behind the first: it fails at once.
      second.end();
      expect(await queued).to.be.instanceOf(CallDeadlineError);
      first.end();
      await held;
      // The connection the first call held is gone; the queued call was dropped at its turn, not sent on a new one.
      await eventually('open calls', () => transport.openCalls(url), (open) => open === 0, 2000);
      expect(received).to.deep.equal(['/hang']);
    } finally {
      await transport.close();
    }
  });

  it('fails a call at once when its host\'s pool and queue are full, and counts it', async () => {
    const sheds: string[] = [];
    const transport = new UndiciBidderTransport({ connectionsPerHost: 1, keepAliveTimeoutMs: 1000, maxPendingPerHost: 1 }, 1 << 20, (reason) => sheds.push(reason));
    try {
      const calls = new AuctionCalls();
      const held = [transport.send(call('GET', `${url}/hang`), undefined, { timeoutMs: 60_000, calls }), transport.send(call('GET', `${url}/hang`), undefined, { timeoutMs: 60_000, calls })].map(failureOf);
      const refused = await failureOf(transport.send(call('GET', `${url}/ok`), undefined, { timeoutMs: 60_000 }));
      expect(refused).to.be.instanceOf(HostQueueFullError);
      expect(isTimeout(refused)).to.equal(true);
      expect((refused as Error).message).to.equal(`2 calls to ${url} are already open or waiting`);
      expect(sheds).to.deep.equal(['queue-full']);
      calls.end();
      await Promise.all(held);
      await eventually('open calls', () => transport.openCalls(url), (open) => open === 0, 2000);
    } finally {
      await transport.close();
    }
  });

  it('close() waits at most its grace for calls still out, then destroys the pool', async () => {
    const transport = new UndiciBidderTransport({ connectionsPerHost: 1, keepAliveTimeoutMs: 1000 }, 1 << 20);
    const out = failureOf(transport.send(call('GET', `${url}/drip`), undefined, { timeoutMs: 60_000 }));
    const queued = failureOf(transport.send(call('GET', `${url}/hang`), undefined, { timeoutMs: 60_000 }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await transport.close(100);
    expect(await out).to.be.instanceOf(Error);
    expect(await queued).to.be.instanceOf(Error);
  });
});
