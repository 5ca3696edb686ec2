/**
 * The auction handler alone, in this process: Gavel booted with the benchmark's config and a transport that answers
 * from memory with the mock bidders' bodies, 32 auctions at a time. It prints the CPU per auction and, with
 * --alloc, where the allocations come from (the inspector's sampling heap profiler, garbage included). No network,
 * no HTTP edge: a fast, steady figure for the pipeline and the modules while working on them; `npm run bench` is
 * the measure that counts.
 *
 *   node dist/scripts/bench/in-process.js [--bidders N] [--imps N] [--production [--without PIECE]] [--alloc] [--top N] [--modules] [--promises] [--network]
 *
 * --production sends the production-shaped request (scenarios.ts), --without leaves one of its pieces out; the bid
 * cache is the embedded memory store, as in `npm run bench`. --modules runs Gavel with floors rules and ortb2 blocking.
 */
import type { AccountLoader } from '../../core/accounts/index.js';
import type { StoredResponseReader } from '../../core/stored-responses/index.js';
import { createHook } from 'node:async_hooks';
import { Session } from 'node:inspector';
import type { ResponseData } from '../../core/api/index.js';
import { handleAuction } from '../../core/auction/auction-endpoint.js';
import type { AuctionPipeline } from '../../core/auction/pipeline.js';
import type { ImplicitFields } from '../../core/auction/implicit-fields.js';
import { bootGavel } from '../../core/app/boot.js';
import { systemClock, Tokens } from '../../core/app/tokens.js';
import type { ExecutionPlanner } from '../../core/hooks/plan.js';
import type { BidderTransport } from '../../core/bidders/transport.js';
import { loadConfig } from '../../core/config/index.js';
import { MemoryCacheStore, type CacheServices } from '../../core/cache/index.js';
import { CachingFetcher, MemoryFetcher, type StoredDataService } from '../../core/stored/index.js';
import { mockBidderBody } from './mock-bidders.js';
import { answerProblem, auctionRequest, PIECES, scenario, type Piece } from './scenarios.js';
import { gavelConfig } from './servers.js';

const CONCURRENCY = 32;

function option(args: string[], name: string, fallback: number): number {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
}

/** Answers each call with the mock bidder's body for the call's path, one microtask later (a real send is async). */
const memoryTransport: BidderTransport = {
  async send(call): Promise<ResponseData> {
    await null;
    const body = mockBidderBody(new URL(call.uri).pathname);
    return body === undefined ? { status: 204, body: '', headers: {} } : { status: 200, body, headers: { 'content-type': 'application/json' } };
  },
  async close() {},
};

interface SampledNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampledNode[];
}

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result as T))));
}

/** Bytes allocated by site; a built-in (Map, Object.entries...) is named with the project function that called it. */
function allocationSites(head: SampledNode): Map<string, number> {
  const sites = new Map<string, number>();
  const walk = (node: SampledNode, caller: string): void => {
    const { functionName, url, lineNumber } = node.callFrame;
    const own = url !== '' && !url.startsWith('node:');
    const name = `${functionName || '(anonymous)'} ${url.replace(/.*\/(dist|node_modules)\//, '')}:${lineNumber + 1}`;
    const key = own ? name : `${name} <- ${caller}`;
    sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, own ? name : caller);
  };
  walk(head, '');
  return sites;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const withoutIndex = args.indexOf('--without');
  const without = withoutIndex >= 0 ? (args[withoutIndex + 1] as Piece) : undefined;
  if (without !== undefined && !PIECES.includes(without)) throw new Error(`--without takes one of ${PIECES.join(', ')}`);
  const production = args.includes('--production') || without !== undefined;
  const shape = scenario(option(args, '--bidders', 3), option(args, '--imps', 1), production ? 'production' : 'bare', without);
  const base = gavelConfig(1, 0, args.includes('--modules')) as { logging: { level: string }; admin: unknown };
  const config = loadConfig({ overrides: { ...base, logging: { level: 'error' }, admin: { enabled: false } }, env: {} });
  const app = await bootGavel(config, {
    configure: (container) => {
      // --network: the real undici transport, to the mock bidders on 127.0.0.1:9801 (nginx or mock-bidders.js, started by hand).
      if (!args.includes('--network')) container.rebind(Tokens.BidderTransport).toConstantValue(memoryTransport);
      // No disk either (stored data in memory, behind the usual cache): the auctions here never leave the microtask
      // queue, so one file read (the request's account, looked up again when its cached miss expires) would wait
      // behind every other auction of the run.
      container.rebind(Tokens.StoredData).toConstantValue({ fetcher: new CachingFetcher(new MemoryFetcher(), 300_000, 10_000), close: async () => undefined });
    },
  });
  const services = {
    pipeline: app.container.get<AuctionPipeline>(Tokens.AuctionPipeline),
    planner: app.container.get<ExecutionPlanner>(Tokens.ExecutionPlanner),
    stored: app.container.get<StoredDataService>(Tokens.StoredData).fetcher,
    accounts: app.container.get<AccountLoader>(Tokens.Accounts),
    storedResponses: app.container.get<StoredResponseReader>(Tokens.StoredResponses),
    implicitFields: app.container.get<ImplicitFields>(Tokens.ImplicitFields),
    blockedApps: new Set(config.auction.blockedApps),
    config,
    logger: app.logger,
    clock: systemClock,
  };
  const text = JSON.stringify(auctionRequest(shape));
  let lastAnswer = '';
  const auctions = async (count: number): Promise<void> => {
    let left = count;
    const worker = async (): Promise<void> => {
      while (left-- > 0) {
        const body = JSON.parse(text) as Record<string, unknown>;
        const answer = await handleAuction({ method: 'POST', path: '/openrtb2/auction', headers: {}, query: {}, body, secure: false, receivedAt: Date.now() }, services);
        lastAnswer = JSON.stringify(answer.body);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };

  await auctions(20_000);
  const problem = answerProblem(shape, 200, lastAnswer, 'gavel');
  if (problem) throw new Error(`wrong answer: ${problem}`);
  const perAuction: number[] = [];
  for (let round = 0; round < 5; round++) {
    const started = process.cpuUsage();
    await auctions(20_000);
    const used = process.cpuUsage(started);
    perAuction.push((used.user + used.system) / 20_000);
  }
  perAuction.sort((a, b) => a - b);
  console.log(`${shape.id}: ${perAuction[2]!.toFixed(1)} us of CPU per auction (median of 5 rounds: ${perAuction.map((us) => us.toFixed(1)).join(', ')})`);
  // With --expose-gc, live data only.
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);
  const store = app.container.get<CacheServices>(Tokens.Cache).store;
  const cached = store instanceof MemoryCacheStore ? `; the memory store holds ${store.entryCount} values, ${mb(store.sizeBytes)} MB accounted` : '';
  console.log(`memory: RSS ${mb(memory.rss)} MB, heap used ${mb(memory.heapUsed)} of ${mb(memory.heapTotal)} MB, external ${mb(memory.external)} MB${cached}`);

  if (args.includes('--promises')) {
    // Promises and other async resources made per auction: each await costs a promise and a microtask turn.
    const counts = new Map<string, number>();
    const sites = new Map<string, number>();
    const hook = createHook({
      init: (_id, type) => {
        counts.set(type, (counts.get(type) ?? 0) + 1);
        // The project function that made it: the first stack frame in dist/ other than this script.
        const frame = new Error().stack?.split('\n').find((line) => line.includes('/dist/') && !line.includes('in-process.js'));
        const site = frame?.trim().replace(/^at /, '').replace(/\(?file:\/\/.*\/dist\//, '(').replace(/:\d+\)?$/, ')') ?? '(outside the project)';
        sites.set(site, (sites.get(site) ?? 0) + 1);
      },
    }).enable();
    const sampled = 500;
    await auctions(sampled);
    hook.disable();
    console.log(`async resources per auction: ${[...counts].map(([type, n]) => `${type} ${(n / sampled).toFixed(1)}`).join(', ')}; made by:`);
    for (const [site, n] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, option(args, '--top', 25))) console.log(`  ${(n / sampled).toFixed(1).padStart(5)} ${site}`);
  }

  if (args.includes('--alloc')) {
    const session = new Session();
    session.connect();
    await post(session, 'HeapProfiler.enable');
    await post(session, 'HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMinorGC: true, includeObjectsCollectedByMajorGC: true });
    const sampled = 10_000;
    await auctions(sampled);
    const { profile } = await post<{ profile: { head: SampledNode } }>(session, 'HeapProfiler.stopSampling');
    const sites = allocationSites(profile.head);
    let total = 0;
    for (const bytes of sites.values()) total += bytes;
    const kb = (bytes: number): string => (bytes / 1024 / sampled).toFixed(2).padStart(7);
    console.log(`allocated: ${kb(total).trim()} KB per auction (this script's own JSON.parse and JSON.stringify included); top sites:`);
    const top = [...sites].sort((a, b) => b[1] - a[1]).slice(0, option(args, '--top', 25));
    for (const [site, bytes] of top) console.log(`${kb(bytes)} ${site}`);
  }
  await app.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
