import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { RequestData } from '../../core/api/index.js';
import { isTimeout, ResponseTooLargeError, UndiciBidderTransport } from '../../core/bidders/transport.js';

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
