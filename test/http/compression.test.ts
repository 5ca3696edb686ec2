import { expect } from 'chai';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { accepts } from '../../core/http/compression.js';
import { bannerRequest, startGavel, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';

/** An answer read raw (no automatic decoding, as fetch would do). */
interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function raw(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('response compression (compression.response)', function () {
  this.timeout(20_000);
  let bidder: MockBidder;
  let gavel: RunningGavel | undefined;
  // A request with many imps: an answer of several kilobytes.
  const auctionBody = JSON.stringify({
    ...bannerRequest({}),
    imp: Array.from({ length: 10 }, (_, index) => ({ id: `imp-${index}`, banner: { format: [{ w: 300, h: 250 }] }, ext: { alpha: {} } })),
  });

  before(async () => {
    bidder = await startMockBidder();
  });
  after(() => bidder.close());
  afterEach(async () => {
    await gavel?.close();
    gavel = undefined;
  });

  async function boot(response: Record<string, unknown>): Promise<RunningGavel> {
    gavel = await startGavel({ compression: { response }, bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1.5` } } });
    return gavel;
  }
  const auction = (running: RunningGavel, acceptEncoding?: string) =>
    raw(`${running.url}/openrtb2/auction`, {
      method: 'POST',
      body: auctionBody,
      headers: { 'content-type': 'application/json', ...(acceptEncoding !== undefined && { 'accept-encoding': acceptEncoding }) },
    });

  it('gzips an auction answer for a client that accepts gzip, with a matching content-length', async () => {
    const running = await boot({ enableGzip: true });
    const answer = await auction(running, 'gzip, deflate');
    expect(answer.status).to.equal(200);
    expect(answer.headers['content-encoding']).to.equal('gzip');
    // Added to the Vary: Origin of CORS, not in its place.
    expect(answer.headers.vary).to.equal('Origin, Accept-Encoding');
    expect(Number(answer.headers['content-length'])).to.equal(answer.body.length);
    const json = JSON.parse(gunzipSync(answer.body).toString('utf8'));
    expect(json.seatbid[0].bid).to.have.length(10);
    expect(answer.body.length).to.be.below(Buffer.byteLength(JSON.stringify(json)));
  });

  it('answers in brotli when it is on and accepted, preferred over gzip', async () => {
    const running = await boot({ enableGzip: true, enableBrotli: true });
    const answer = await auction(running, 'gzip, br');
    expect(answer.headers['content-encoding']).to.equal('br');
    expect(JSON.parse(brotliDecompressSync(answer.body).toString('utf8')).seatbid[0].bid).to.have.length(10);
    // gzip only: gzip.
    expect((await auction(running, 'gzip')).headers['content-encoding']).to.equal('gzip');
  });

  it('leaves the answer plain when the client does not accept it, refuses it with q=0, or it is off', async () => {
    const running = await boot({ enableGzip: true });
    for (const header of [undefined, 'identity', 'gzip;q=0', 'br']) {
      const answer = await auction(running, header);
      expect(answer.headers['content-encoding'], String(header)).to.equal(undefined);
      expect(JSON.parse(answer.body.toString('utf8')).seatbid[0].bid).to.have.length(10);
    }
    await running.close();
    const off = await boot({});
    expect((await auction(off, 'gzip')).headers['content-encoding']).to.equal(undefined);
  });

  it('leaves a small answer plain (below minBytes)', async () => {
    const running = await boot({ enableGzip: true, minBytes: 1024 });
    const status = await raw(`${running.url}/status`, { headers: { 'accept-encoding': 'gzip' } });
    expect(status.headers['content-encoding']).to.equal(undefined);
    expect(JSON.parse(status.body.toString('utf8'))).to.deep.equal({ status: 'ok' });
  });

  describe('on the Koa lane (the embedded bid cache)', () => {
    // A VAST document of about 6 KB, and a small JSON value.
    const vast = `<VAST version="3.0">${'<Ad><InLine><AdSystem>gavel</AdSystem><Impression><![CDATA[https://t.example/i]]></Impression></InLine></Ad>'.repeat(60)}</VAST>`;
    const put = async (running: RunningGavel, puts: unknown[]): Promise<string[]> => {
      const answer = await raw(`${running.url}/cache`, { method: 'POST', body: JSON.stringify({ puts }), headers: { 'content-type': 'application/json' } });
      expect(answer.status).to.equal(200);
      return (JSON.parse(answer.body.toString('utf8')) as { responses: { uuid: string }[] }).responses.map((entry) => entry.uuid);
    };
    const get = (running: RunningGavel, uuid: string, acceptEncoding?: string) =>
      raw(`${running.url}/cache?uuid=${uuid}`, { headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });

    it('gzips or brotlis a large cached value, as the fast lane does, keeping its type and headers', async () => {
      const running = await boot({ enableGzip: true, enableBrotli: true });
      const [uuid] = await put(running, [{ type: 'xml', value: vast }]);

      const gzipped = await get(running, uuid!, 'gzip');
      expect(gzipped.status).to.equal(200);
      expect(gzipped.headers['content-encoding']).to.equal('gzip');
      expect(gzipped.headers.vary).to.equal('Origin, Accept-Encoding');
      expect(gzipped.headers['content-type']).to.equal('application/xml');
      expect(gzipped.headers['content-security-policy']).to.equal('sandbox');
      expect(Number(gzipped.headers['content-length'])).to.equal(gzipped.body.length);
      expect(gzipped.body.length).to.be.below(Buffer.byteLength(vast));
      expect(gunzipSync(gzipped.body).toString('utf8')).to.equal(vast);

      const brotli = await get(running, uuid!, 'gzip, deflate, br');
      expect(brotli.headers['content-encoding']).to.equal('br');
      expect(Number(brotli.headers['content-length'])).to.equal(brotli.body.length);
      expect(brotliDecompressSync(brotli.body).toString('utf8')).to.equal(vast);
    });

    it('leaves a small value plain, and any value for a client that accepts no encoding', async () => {
      const running = await boot({ enableGzip: true, enableBrotli: true, minBytes: 1024 });
      const [small, large] = await put(running, [{ type: 'json', value: { price: 1.5 } }, { type: 'xml', value: vast }]);

      const plain = await get(running, small!, 'gzip, br');
      expect(plain.headers['content-encoding']).to.equal(undefined);
      expect(JSON.parse(plain.body.toString('utf8'))).to.deep.equal({ price: 1.5 });

      for (const header of [undefined, 'identity', 'gzip;q=0, br;q=0']) {
        const answer = await get(running, large!, header);
        expect(answer.headers['content-encoding'], String(header)).to.equal(undefined);
        // Whether the answer varies by Accept-Encoding does not depend on this client's header.
        expect(answer.headers.vary, String(header)).to.equal('Origin, Accept-Encoding');
        expect(answer.body.toString('utf8'), String(header)).to.equal(vast);
      }
    });

    it('compresses the JSON answer of POST /cache too (a handler body Koa would serialise)', async () => {
      const running = await boot({ enableGzip: true, minBytes: 100 });
      const answer = await raw(`${running.url}/cache`, {
        method: 'POST',
        body: JSON.stringify({ puts: Array.from({ length: 5 }, (_, index) => ({ type: 'json', value: { index } })) }),
        headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' },
      });
      expect(answer.status).to.equal(200);
      expect(answer.headers['content-encoding']).to.equal('gzip');
      expect(answer.headers['content-type']).to.contain('application/json');
      expect(JSON.parse(gunzipSync(answer.body).toString('utf8')).responses).to.have.length(5);
    });

    it('does not compress a cache answer when compression is off', async () => {
      const running = await boot({});
      const [uuid] = await put(running, [{ type: 'xml', value: vast }]);
      const answer = await get(running, uuid!, 'gzip, br');
      expect(answer.headers['content-encoding']).to.equal(undefined);
      expect(answer.headers.vary).to.equal('Origin');
      expect(answer.body.toString('utf8')).to.equal(vast);
    });
  });

  it('reads Accept-Encoding as RFC 9110 does', () => {
    expect(accepts('gzip', 'gzip')).to.equal(true);
    expect(accepts('GZIP;q=0.5', 'gzip')).to.equal(true);
    expect(accepts('gzip;q=0', 'gzip')).to.equal(false);
    expect(accepts('*', 'gzip')).to.equal(true);
    expect(accepts('*;q=0', 'gzip')).to.equal(false);
    expect(accepts('gzip;q=0, *', 'gzip')).to.equal(false);
    expect(accepts('deflate, br', 'gzip')).to.equal(false);
    expect(accepts(undefined, 'gzip')).to.equal(false);
  });
});
