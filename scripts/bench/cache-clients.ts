/**
 * The bid cache's clients alone, in this process: what one auction's put costs (the values of the production
 * request at N bidders: each bid as JSON and its VAST), through the embedded memory store, the Redis-backed store
 * and the remote Prebid Cache client, and how many round trips each auction takes. 32 auctions at a time.
 *
 *   node dist/scripts/bench/cache-clients.js [--bidders N] [--auctions N] [--redis redis://127.0.0.1:6379]
 *
 * The remote client is measured against Gavel's own cache routes served by a child process (its CPU is not counted
 * here); Redis is measured only when --redis names a server (keys under gavel:bench:, expiring in a minute).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { Router } from '@koa/router';
import { DEFAULT_CACHE_LIMITS, EmbeddedCacheClient, MemoryCacheStore, RedisCacheStore, registerCacheRoutes, RemoteCacheClient, type CacheClient, type CachePut } from '../../core/cache/index.js';
import { mockBidderBody } from './mock-bidders.js';

const CONCURRENCY = 32;

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

/** One auction's values: each bidder's bid as JSON and its markup as the VAST, as the production request caches them. */
function auctionValues(bidders: number): CachePut[] {
  const values: CachePut[] = [];
  for (let index = 0; index < bidders; index++) {
    const bid = (JSON.parse(mockBidderBody(`/b${index}`)!) as { seatbid: Array<{ bid: Array<Record<string, unknown>> }> }).seatbid[0]!.bid[0]!;
    values.push({ type: 'json', value: bid, ttlseconds: 1800 }, { type: 'xml', value: bid.adm as string, ttlseconds: 1800 });
  }
  return values;
}

async function measure(name: string, client: CacheClient, values: CachePut[], auctions: number, roundTrips: () => number): Promise<void> {
  const run = async (count: number): Promise<void> => {
    let left = count;
    const worker = async (): Promise<void> => {
      while (left-- > 0) {
        const uuids = await client.put(values, Date.now() + 1000);
        if (uuids.some((uuid) => uuid === undefined)) throw new Error(`${name}: a value was not cached`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };
  await run(Math.min(auctions, 2000));
  const tripsBefore = roundTrips();
  const started = process.cpuUsage();
  const wallStarted = process.hrtime.bigint();
  await run(auctions);
  const used = process.cpuUsage(started);
  const wallMs = Number(process.hrtime.bigint() - wallStarted) / 1e6;
  const trips = roundTrips() - tripsBefore;
  console.log(
    `${name.padEnd(28)} ${((used.user + used.system) / auctions).toFixed(1).padStart(7)} us CPU per auction (${values.length} values), ` +
      `${(auctions / (wallMs / 1000)).toFixed(0)} auctions/s, ${Number.isNaN(trips) ? 'n/a' : (trips / auctions).toFixed(2)} round trips per auction`,
  );
}

/** The cache routes on an ephemeral port, in a child process so the client's CPU is measured alone. */
function startCacheServerChild(): Promise<{ child: ChildProcess; url: string; requests: () => Promise<number> }> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (message) => {
      const { port } = message as { port: number };
      const requests = (): Promise<number> =>
        new Promise((answer) => {
          child.once('message', (reply) => answer((reply as { requests: number }).requests));
          child.send('count');
        });
      resolve({ child, url: `http://127.0.0.1:${port}/cache`, requests });
    });
  });
}

function serve(): void {
  let requests = 0;
  const app = new Koa();
  app.use(async (_ctx, next) => {
    requests++;
    await next();
  });
  const router = new Router();
  registerCacheRoutes(router, new MemoryCacheStore(), DEFAULT_CACHE_LIMITS);
  app.use(router.routes());
  const server = createServer(app.callback()).listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', () => process.send!({ requests }));
  process.on('disconnect', () => process.exit(0));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const bidders = Number(option(args, '--bidders') ?? 3);
  const auctions = Number(option(args, '--auctions') ?? 20_000);
  const values = auctionValues(bidders);

  await measure('memory store', new EmbeddedCacheClient(new MemoryCacheStore()), values, auctions * 5, () => Number.NaN);

  const redisUrl = option(args, '--redis');
  if (redisUrl) {
    const store = new RedisCacheStore({ url: redisUrl, keyPrefix: 'gavel:bench:' });
    const pipelines = { count: 0 };
    const redis = (store as unknown as { redis: { pipeline: () => unknown } }).redis;
    const pipeline = redis.pipeline.bind(redis);
    redis.pipeline = () => {
      pipelines.count++;
      return pipeline();
    };
    await measure('Redis store (one server)', new EmbeddedCacheClient(store), values, auctions, () => pipelines.count);
    await store.close();
  }

  const server = await startCacheServerChild();
  const before = await server.requests();
  const remote = new RemoteCacheClient({ url: server.url });
  await measure('remote Prebid Cache client', remote, values, auctions, () => Number.NaN);
  const calls = (await server.requests()) - before;
  console.log(`  round trips: the cache server answered ${calls} POST /cache for ${auctions + Math.min(auctions, 2000)} auctions`);
  server.child.disconnect();
}

if (process.argv.includes('--serve')) serve();
else
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
