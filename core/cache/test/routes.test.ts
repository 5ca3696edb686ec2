import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:http';
import Koa from 'koa';
import { Router } from '@koa/router';
import { DEFAULT_CACHE_LIMITS, maxRequestBodyBytes, type CacheLimits } from '../limits.js';
import { registerCacheRoutes } from '../routes.js';
import { MemoryCacheStore, type CacheEntry, type CacheStore } from '../store.js';
import { listen, manualClock, startCacheServer, type RunningCache } from './server.js';

/** A real memory store that also remembers what the route handed it. */
class RecordingStore extends MemoryCacheStore {
  readonly received: CacheEntry[][] = [];
  override async put(entries: CacheEntry[]): Promise<string[]> {
    this.received.push(entries);
    return super.put(entries);
  }
}

const failingStore: CacheStore = {
  put: () => Promise.reject(new Error('backend down')),
  get: () => Promise.reject(new Error('backend down')),
  close: async () => undefined,
};

async function postJson(base: string, body: unknown): Promise<Response> {
  return fetch(`${base}/cache`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** Sends a body in chunks without a Content-Length, so only the streaming limit can stop it. */
function postChunked(base: string, chunk: string, times: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/cache`, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (data: string) => (text += data));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    for (let i = 0; i < times; i++) req.write(chunk);
    req.end();
  });
}

describe('cache routes', () => {
  const clock = manualClock();
  const limits: CacheLimits = { ...DEFAULT_CACHE_LIMITS, maxValueBytes: 1024, maxPutsPerRequest: 3 };
  let store: RecordingStore;
  let server: RunningCache;

  beforeEach(async () => {
    store = new RecordingStore({ now: clock.now });
    server = await startCacheServer(store, limits);
  });
  afterEach(() => server.close());

  describe('POST /cache', () => {
    it('stores every put and answers the uuids in order', async () => {
      const bid = { id: 'bid-1', impid: 'imp-1', price: 1.25 };
      const vast = '<VAST version="3.0"><Ad id="1"/></VAST>';
      const response = await postJson(server.base, {
        puts: [
          { type: 'json', value: bid, ttlseconds: 60 },
          { type: 'xml', value: vast, ttlseconds: 60 },
        ],
      });
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^application\/json/);
      const { responses } = (await response.json()) as { responses: Array<{ uuid: string }> };
      expect(responses).to.have.length(2);

      const first = await fetch(`${server.base}/cache?uuid=${responses[0]!.uuid}`);
      expect(first.status).to.equal(200);
      expect(first.headers.get('content-type')).to.match(/^application\/json/);
      expect(await first.json()).to.deep.equal(bid);

      const second = await fetch(`${server.base}/cache?uuid=${responses[1]!.uuid}`);
      expect(second.status).to.equal(200);
      expect(second.headers.get('content-type')).to.match(/^application\/xml/);
      expect(await second.text()).to.equal(vast);
    });

    it('hands the store clamped TTLs: over the cap cut, 0 and absent given the default', async () => {
      const response = await postJson(server.base, {
        puts: [
          { type: 'json', value: 1, ttlseconds: 99999 },
          { type: 'json', value: 2, ttlseconds: 0 },
          { type: 'json', value: 3 },
        ],
      });
      expect(response.status).to.equal(200);
      expect(store.received[0]!.map((entry) => entry.ttlSeconds)).to.deep.equal([3600, 3600, 3600]);
    });

    const badBodies: Array<[string, unknown, RegExp]> = [
      ['a body without puts', { values: [] }, /must be a JSON object with a "puts" array/],
      ['an empty puts array', { puts: [] }, /"puts" is empty/],
      ['too many puts', { puts: [1, 2, 3, 4].map((value) => ({ type: 'json', value })) }, /too many puts: 4 given, at most 3/],
      ['an unknown type', { puts: [{ type: 'html', value: '<p/>' }] }, /puts\[0\] type must be "json" or "xml", got "html"/],
      ['an xml value that is not a string', { puts: [{ type: 'xml', value: 5 }] }, /puts\[0\] value must be a string of XML/],
      ['a value over the size limit', { puts: [{ type: 'xml', value: 'x'.repeat(1025) }] }, /puts\[0\] value is 1025 bytes, larger than the limit of 1024/],
      ['a negative TTL', { puts: [{ type: 'json', value: 1 }, { type: 'json', value: 1, ttlseconds: -5 }] }, /puts\[1\] ttlseconds must not be negative/],
    ];
    for (const [what, body, message] of badBodies) {
      it(`answers 400 with a plain-text reason for ${what}`, async () => {
        const response = await postJson(server.base, body);
        expect(response.status).to.equal(400);
        expect(response.headers.get('content-type')).to.match(/^text\/plain/);
        expect(await response.text()).to.match(message);
        expect(store.received, 'nothing is stored when any put is bad').to.have.length(0);
      });
    }

    it('lists every bad put, one line each', async () => {
      const response = await postJson(server.base, { puts: [{ type: 'x', value: 1 }, { type: 'json', value: 1 }, { type: 'json' }] });
      expect((await response.text()).split('\n')).to.deep.equal(['puts[0] type must be "json" or "xml", got "x"', 'puts[2] value is required']);
    });

    it('answers 400 for a body that is not JSON', async () => {
      const response = await fetch(`${server.base}/cache`, { method: 'POST', body: '{"puts": [' });
      expect(response.status).to.equal(400);
      expect(await response.text()).to.match(/^the body is not valid JSON/);
    });

    it('answers 413 when the declared length is over the limit, without reading the body', async () => {
      const response = await fetch(`${server.base}/cache`, { method: 'POST', body: 'x'.repeat(maxRequestBodyBytes(limits) + 1) });
      expect(response.status).to.equal(413);
      expect(await response.text()).to.match(/larger than the limit/);
    });

    it('answers 413 when a streamed body grows over the limit', async () => {
      const chunk = 'x'.repeat(4096);
      const times = Math.ceil(maxRequestBodyBytes(limits) / chunk.length) + 2;
      const response = await postChunked(server.base, chunk, times);
      expect(response.status).to.equal(413);
      expect(store.received).to.have.length(0);
    });

    it('accepts a streamed body under the limit', async () => {
      const body = JSON.stringify({ puts: [{ type: 'json', value: { ok: true } }] });
      const response = await postChunked(server.base, body, 1);
      expect(response.status).to.equal(200);
      expect(JSON.parse(response.text).responses).to.have.length(1);
    });
  });

  describe('GET /cache', () => {
    it('answers 400 without a uuid', async () => {
      const response = await fetch(`${server.base}/cache`);
      expect(response.status).to.equal(400);
      expect(await response.text()).to.match(/missing query parameter uuid/);
    });

    it('answers 400 when the uuid is given twice', async () => {
      expect((await fetch(`${server.base}/cache?uuid=a&uuid=b`)).status).to.equal(400);
    });

    it('answers 404 for an unknown uuid', async () => {
      const response = await fetch(`${server.base}/cache?uuid=8c1a1a35-4f5d-4c39-a36a-9f0e2c9b1e11`);
      expect(response.status).to.equal(404);
      expect(await response.text()).to.match(/never stored or has expired/);
    });

    it('answers 404 once the value has expired', async () => {
      const put = await postJson(server.base, { puts: [{ type: 'json', value: { a: 1 }, ttlseconds: 5 }] });
      const { responses } = (await put.json()) as { responses: Array<{ uuid: string }> };
      const url = `${server.base}/cache?uuid=${responses[0]!.uuid}`;
      expect((await fetch(url)).status).to.equal(200);
      clock.advance(5000);
      expect((await fetch(url)).status).to.equal(404);
    });
  });

  describe('with a failing store', () => {
    let broken: RunningCache;
    before(async () => (broken = await startCacheServer(failingStore, limits)));
    after(() => broken.close());

    it('answers 500 on put and on get, without leaking the backend error', async () => {
      const put = await postJson(broken.base, { puts: [{ type: 'json', value: 1 }] });
      expect(put.status).to.equal(500);
      expect(await put.text()).to.not.match(/backend down/);
      expect((await fetch(`${broken.base}/cache?uuid=x`)).status).to.equal(500);
    });
  });

  it('uses a body another middleware already parsed', async () => {
    const parsedStore = new MemoryCacheStore();
    const app = new Koa();
    app.use(async (ctx, next) => {
      (ctx.request as unknown as { body: unknown }).body = { puts: [{ type: 'json', value: { parsed: true } }] };
      ctx.req.resume();
      await next();
    });
    const router = new Router();
    registerCacheRoutes(router, parsedStore, limits);
    app.use(router.routes());
    const running = await listen(createServer(app.callback()));
    try {
      const response = await fetch(`${running.base}/cache`, { method: 'POST', body: 'ignored' });
      const { responses } = (await response.json()) as { responses: Array<{ uuid: string }> };
      expect(await parsedStore.get(responses[0]!.uuid)).to.deep.equal({ type: 'json', value: '{"parsed":true}' });
    } finally {
      await running.close();
    }
  });
});
