import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '../../../core/api/testing.js';
import { FETCH_DEFAULTS, FloorsFetcher, type FetchSettings } from '../fetcher.js';

/** A floors server on loopback: each path answers as the test set it; every hit is counted. */
interface FloorsServer {
  url: string;
  hits: Map<string, number>;
  routes: Map<string, { status?: number; body: string; headers?: Record<string, string>; delayMs?: number }>;
  close(): Promise<void>;
}

async function startFloorsServer(): Promise<FloorsServer> {
  const hits = new Map<string, number>();
  const routes: FloorsServer['routes'] = new Map();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes.get(path);
    const send = () => {
      if (!route) return void res.writeHead(404).end();
      res.writeHead(route.status ?? 200, { 'content-type': 'application/json', ...route.headers }).end(route.body);
    };
    if (route?.delayMs) setTimeout(send, route.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    hits,
    routes,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const FILE = { currency: 'USD', modelgroups: [{ schema: { fields: ['mediaType'] }, values: { banner: 2, '*': 1 } }] };

describe('prebid.floors: the fetcher (local floors server)', () => {
  let server: FloorsServer;
  before(async () => {
    server = await startFloorsServer();
  });
  after(() => server.close());

  const settings = (path: string, overrides: Partial<FetchSettings> = {}): FetchSettings => ({ ...FETCH_DEFAULTS, url: `${server.url}${path}`, ...overrides });
  const fetcher = () => new FloorsFetcher({ maxEntries: 2, logger: silentLogger });

  it('starts a fetch on the first lookup without waiting, then serves the file from memory', async () => {
    server.routes.set('/good.json', { body: JSON.stringify(FILE) });
    const floors = fetcher();
    const now = Date.now();
    expect(floors.lookup(settings('/good.json'), now).status).to.equal('inprogress');
    await floors.settled();
    const found = floors.lookup(settings('/good.json'), now + 1000);
    expect(found.status).to.equal('success');
    expect(found.floors!.data.modelgroups[0]!.values).to.deep.equal({ banner: 2, '*': 1 });
    expect(found.floors!.compiled.get(found.floors!.data.modelgroups[0]!)!.values.get('banner')).to.equal(2);
    expect(server.hits.get('/good.json')).to.equal(1);
  });

  it('refreshes after period_sec, keeping the old file meanwhile, and drops it after max_age_sec', async () => {
    server.routes.set('/refresh.json', { body: JSON.stringify(FILE) });
    const floors = fetcher();
    const now = Date.now();
    const refresh = settings('/refresh.json', { periodSec: 300, maxAgeSec: 600 });
    floors.lookup(refresh, now);
    await floors.settled();
    expect(floors.lookup(refresh, now + 299_000).status).to.equal('success');
    expect(server.hits.get('/refresh.json')).to.equal(1);
    server.routes.set('/refresh.json', { body: JSON.stringify({ ...FILE, modelgroups: [{ schema: { fields: ['mediaType'] }, values: { banner: 5 } }] }) });
    // Due a refresh: the old file still answers while the new one is fetched.
    expect(floors.lookup(refresh, now + 301_000).floors!.data.modelgroups[0]!.values.banner).to.equal(2);
    await floors.settled();
    expect(server.hits.get('/refresh.json')).to.equal(2);
    expect(floors.lookup(refresh, now + 302_000).floors!.data.modelgroups[0]!.values.banner).to.equal(5);
  });

  it('drops a file once it is older than max_age_sec', async () => {
    server.routes.set('/aging.json', { body: JSON.stringify(FILE) });
    const floors = fetcher();
    const aging = settings('/aging.json', { periodSec: 3600, maxAgeSec: 1 });
    floors.lookup(aging, Date.now());
    await floors.settled();
    expect(floors.lookup(aging, Date.now()).status).to.equal('success');
    const later = floors.lookup(aging, Date.now() + 2000);
    expect(later.floors).to.equal(undefined);
  });

  it('gives up on a server slower than timeout_ms (status timeout) and retries only after period_sec', async () => {
    server.routes.set('/slow.json', { body: JSON.stringify(FILE), delayMs: 400 });
    const floors = fetcher();
    const now = Date.now();
    const slow = settings('/slow.json', { timeoutMs: 50 });
    floors.lookup(slow, now);
    await floors.settled();
    expect(floors.lookup(slow, now + 1000).status).to.equal('timeout');
    await floors.settled();
    expect(server.hits.get('/slow.json')).to.equal(1);
    // Past the period: tried again.
    floors.lookup(slow, now + FETCH_DEFAULTS.periodSec * 1000 + 1);
    await floors.settled();
    expect(server.hits.get('/slow.json')).to.equal(2);
  });

  it('refuses a file over max_file_size_kb', async () => {
    const big = { ...FILE, modelgroups: [{ schema: { fields: ['domain'] }, values: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`site-${i}.example.com`, 1])) }] };
    server.routes.set('/big.json', { body: JSON.stringify(big) });
    const floors = fetcher();
    const now = Date.now();
    floors.lookup(settings('/big.json', { maxFileSizeKb: 1 }), now);
    await floors.settled();
    expect(floors.lookup(settings('/big.json', { maxFileSizeKb: 1 }), now + 1).status).to.equal('error');
    // The same file under the default limit (100 KB) is good: the size was the reason.
    const roomy = fetcher();
    roomy.lookup(settings('/big.json'), now);
    await roomy.settled();
    expect(roomy.lookup(settings('/big.json'), now + 1).status).to.equal('success');
  });

  it('refuses a file with more rules than max_rules, bad JSON, or a failing status', async () => {
    server.routes.set('/many.json', { body: JSON.stringify(FILE) });
    server.routes.set('/broken.json', { body: '{"modelgroups": [' });
    server.routes.set('/gone.json', { status: 500, body: '{}' });
    for (const [path, limits] of [['/many.json', { maxRules: 1 }], ['/broken.json', {}], ['/gone.json', {}]] as const) {
      const floors = fetcher();
      const now = Date.now();
      floors.lookup(settings(path, limits), now);
      await floors.settled();
      expect(floors.lookup(settings(path, limits), now + 1).status, path).to.equal('error');
    }
  });

  it('keeps at most maxEntries files, the least recently used dropped first', async () => {
    for (const name of ['a', 'b', 'c']) server.routes.set(`/${name}.json`, { body: JSON.stringify(FILE) });
    const floors = fetcher();
    const now = Date.now();
    floors.lookup(settings('/a.json'), now);
    floors.lookup(settings('/b.json'), now);
    await floors.settled();
    floors.lookup(settings('/a.json'), now);
    floors.lookup(settings('/c.json'), now);
    await floors.settled();
    expect(floors.lookup(settings('/a.json'), now).status).to.equal('success');
    // b was dropped: looking it up starts a new fetch.
    expect(floors.lookup(settings('/b.json'), now).status).to.equal('inprogress');
    await floors.settled();
  });
});
