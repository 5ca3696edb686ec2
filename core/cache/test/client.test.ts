import { expect } from 'chai';
import { createServer } from 'node:http';
import { EmbeddedCacheClient, RemoteCacheClient } from '../client.js';
import { DEFAULT_CACHE_LIMITS, type CacheLimits } from '../limits.js';
import { MemoryCacheStore, type CacheEntry, type CacheStore } from '../store.js';
import { listen, startCacheServer, type RunningCache } from './server.js';

const limits: CacheLimits = { ...DEFAULT_CACHE_LIMITS, maxValueBytes: 100, maxPutsPerRequest: 3 };
const soon = (): number => Date.now() + 2000;
const tooBig = 'x'.repeat(101);

/** A real memory store that also counts how often it is called (the client puts into a memory store at once). */
class CountingStore extends MemoryCacheStore {
  calls = 0;
  override putNow(entries: CacheEntry[]): string[] {
    this.calls++;
    return super.putNow(entries);
  }
}

describe('EmbeddedCacheClient', () => {
  it('stores the values and answers their uuids in order', async () => {
    const store = new MemoryCacheStore();
    const client = new EmbeddedCacheClient(store, limits);
    const uuids = await client.put([{ type: 'json', value: { a: 1 } }, { type: 'xml', value: '<VAST/>' }], soon());
    expect(await store.get(uuids[0]!)).to.deep.equal({ type: 'json', value: '{"a":1}' });
    expect(await store.get(uuids[1]!)).to.deep.equal({ type: 'xml', value: '<VAST/>' });
  });

  it('leaves undefined for values over the limits and caches the others', async () => {
    const store = new MemoryCacheStore();
    const client = new EmbeddedCacheClient(store, limits);
    const uuids = await client.put(
      [{ type: 'xml', value: tooBig }, { type: 'json', value: 2 }, { type: 'json', value: 3, ttlseconds: -1 }],
      soon(),
    );
    expect(uuids[0]).to.equal(undefined);
    expect(await store.get(uuids[1]!)).to.deep.equal({ type: 'json', value: '2' });
    expect(uuids[2]).to.equal(undefined);
  });

  it('does not touch the store once the deadline has passed', async () => {
    const store = new CountingStore();
    const uuids = await new EmbeddedCacheClient(store, limits).put([{ type: 'json', value: 1 }], Date.now() - 1);
    expect(uuids).to.deep.equal([undefined]);
    expect(store.calls).to.equal(0);
  });

  it('answers all undefined when the store fails', async () => {
    const failing: CacheStore = { put: () => Promise.reject(new Error('down')), get: async () => undefined, close: async () => undefined };
    const warnings: unknown[] = [];
    const client = new EmbeddedCacheClient(failing, limits, { logger: { warn: (obj) => warnings.push(obj) } });
    expect(await client.put([{ type: 'json', value: 1 }, { type: 'json', value: 2 }], soon())).to.deep.equal([undefined, undefined]);
    expect(warnings).to.have.length(1);
  });

  it('answers all undefined, reporting the failure, when the memory store refuses a value larger than its budget', async () => {
    const store = new CountingStore({ maxTotalBytes: 64 });
    const problems: string[] = [];
    const warnings: unknown[] = [];
    const client = new EmbeddedCacheClient(store, limits, { logger: { warn: (obj) => warnings.push(obj) } });
    expect(await client.put([{ type: 'json', value: 'x'.repeat(90) }], soon(), (problem) => problems.push(problem))).to.deep.equal([undefined]);
    expect(store.calls).to.equal(1);
    expect(problems).to.deep.equal(['failed']);
    expect(warnings).to.have.length(1);
  });

  it('answers all undefined, never throwing, when a store throws instead of rejecting', async () => {
    const throwing: CacheStore = {
      put: () => {
        throw new Error('not connected');
      },
      get: async () => undefined,
      close: async () => undefined,
    };
    const problems: string[] = [];
    const answer = new EmbeddedCacheClient(throwing, limits).put([{ type: 'json', value: 1 }], soon(), (problem) => problems.push(problem));
    expect(await answer).to.deep.equal([undefined]);
    expect(problems).to.deep.equal(['failed']);
  });

  it('gives up on a store slower than the deadline', async () => {
    const hanging: CacheStore = { put: () => new Promise(() => undefined), get: async () => undefined, close: async () => undefined };
    const started = Date.now();
    const uuids = await new EmbeddedCacheClient(hanging, limits).put([{ type: 'json', value: 1 }], Date.now() + 30);
    expect(uuids).to.deep.equal([undefined]);
    expect(Date.now() - started).to.be.below(500);
  });
});

describe('RemoteCacheClient', () => {
  let store: MemoryCacheStore;
  let server: RunningCache;
  let client: RemoteCacheClient;

  before(async () => {
    store = new MemoryCacheStore();
    server = await startCacheServer(store, limits);
    client = new RemoteCacheClient({ url: `${server.base}/cache`, limits });
  });
  after(() => server.close());

  it('caches through the HTTP endpoint, JSON and XML alike', async () => {
    const bid = { id: 'b"1', adm: '<div class="ad">é</div>' };
    const uuids = await client.put([{ type: 'json', value: bid, ttlseconds: 30 }, { type: 'xml', value: '<VAST version="3.0"/>' }], soon());
    expect(JSON.parse((await store.get(uuids[0]!))!.value)).to.deep.equal(bid);
    expect(await store.get(uuids[1]!)).to.deep.equal({ type: 'xml', value: '<VAST version="3.0"/>' });
  });

  it('splits more values than one call may carry into several calls and keeps the order', async () => {
    const values = Array.from({ length: 7 }, (_, index) => ({ type: 'json' as const, value: { index } }));
    const uuids = await client.put(values, soon());
    expect(new Set(uuids).size).to.equal(7);
    for (const [index, uuid] of uuids.entries()) {
      expect(JSON.parse((await store.get(uuid!))!.value)).to.deep.equal({ index });
    }
  });

  it('leaves undefined for a value over the limits without sending it', async () => {
    const uuids = await client.put([{ type: 'json', value: 1 }, { type: 'xml', value: tooBig }], soon());
    expect(uuids[0]).to.be.a('string');
    expect(uuids[1]).to.equal(undefined);
  });

  it('answers all undefined, without throwing, when the cache cannot be reached', async () => {
    const closed = await startCacheServer(new MemoryCacheStore(), limits);
    await closed.close();
    const unreachable = new RemoteCacheClient({ url: `${closed.base}/cache`, limits });
    expect(await unreachable.put([{ type: 'json', value: 1 }, { type: 'json', value: 2 }], soon())).to.deep.equal([undefined, undefined]);
  });

  describe('against a misbehaving server', () => {
    let answer: (res: import('node:http').ServerResponse) => void;
    let odd: RunningCache;
    before(async () => {
      odd = await listen(createServer((req, res) => req.resume().on('end', () => answer(res))));
    });
    after(() => odd.close());
    const oddClient = (): RemoteCacheClient => new RemoteCacheClient({ url: `${odd.base}/cache`, limits });

    it('answers undefined on an error status', async () => {
      answer = (res) => res.writeHead(500).end('{"responses":[{"uuid":"u1"}]}');
      expect(await oddClient().put([{ type: 'json', value: 1 }], soon())).to.deep.equal([undefined]);
    });

    it('answers undefined when the server returns fewer uuids than values', async () => {
      answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"responses":[{"uuid":"u1"}]}');
      expect(await oddClient().put([{ type: 'json', value: 1 }, { type: 'json', value: 2 }], soon())).to.deep.equal([undefined, undefined]);
    });

    it('answers undefined when the body is not JSON', async () => {
      answer = (res) => res.writeHead(200).end('<html>');
      expect(await oddClient().put([{ type: 'json', value: 1 }], soon())).to.deep.equal([undefined]);
    });

    it('passes the uuids of a well-formed answer through', async () => {
      answer = (res) => res.writeHead(200).end('{"responses":[{"uuid":"u1"},{"uuid":"u2"}]}');
      expect(await oddClient().put([{ type: 'json', value: 1 }, { type: 'json', value: 2 }], soon())).to.deep.equal(['u1', 'u2']);
    });

    it('stops waiting at the deadline', async () => {
      answer = (res) => setTimeout(() => res.writeHead(200).end('{"responses":[{"uuid":"late"}]}'), 1000);
      const started = Date.now();
      expect(await oddClient().put([{ type: 'json', value: 1 }], Date.now() + 50)).to.deep.equal([undefined]);
      expect(Date.now() - started).to.be.below(800);
    });
  });
});
