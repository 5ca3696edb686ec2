import { expect } from 'chai';
import pg from 'pg';
import { PrometheusMetrics, startAdminServer, METRIC_NAMES, type AdminServer } from '../../core/metrics/index.js';
import { CACHE_UNAVAILABLE_WARNING } from '../../core/cache/index.js';
import { migrateStoredData, saveStoredData } from '../../core/stored/index.js';
import { valueOf } from '../metrics/exposition.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { getJson, postJson, silentLogger, startGavel, type RunningGavel } from '../support/gavel.js';
import { eventually } from '../support/eventually.js';
import { hostAndPortOf, startTcpStandIn, type TcpStandIn } from '../support/tcp-stand-in.js';
import { dropStoredDataTable } from '../../core/stored/test/pg-table.js';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The admin listener as `gavel serve` starts it for a lone process, over an app booted in this test. */
function adminOver(gavel: RunningGavel): Promise<AdminServer> {
  return startAdminServer({ port: 0, metrics: gavel.app.metrics as PrometheusMetrics, logger: silentLogger, readiness: () => gavel.app.readiness.report() });
}

// Needs this machine's PostgreSQL (GAVEL_TEST_PG), reached through a stand-in that can stop answering.
describe('a PostgreSQL that accepts connections and never answers', function () {
  this.timeout(30_000);
  const connectionString = process.env.GAVEL_TEST_PG;
  const table = `gavel_hang_${process.pid}`;
  let pool: pg.Pool;
  let standIn: TcpStandIn;
  let bidder: MockBidder;
  let gavel: RunningGavel;
  let admin: AdminServer;

  before(async function () {
    if (!connectionString) this.skip();
    pool = new pg.Pool({ connectionString, max: 2 });
    await migrateStoredData(pool, table);
    bidder = await startMockBidder();
    await saveStoredData(pool, 'request', 'hang-req', {
      site: { page: 'https://news.example/a', publisher: { id: 'pub-1' } },
      imp: [{ id: 'slot-1', banner: { format: [{ w: 300, h: 250 }] }, ext: { alpha: {} } }],
    }, table);
    standIn = await startTcpStandIn(hostAndPortOf(connectionString!));
    const throughStandIn = new URL(connectionString!);
    throughStandIn.host = `127.0.0.1:${standIn.port}`;
    gavel = await startGavel({
      bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1` } },
      storedRequests: {
        // No cache: every auction reads the database, so the stand-in decides each answer.
        cacheTtlSeconds: 0,
        postgres: { url: throughStandIn.href, table, connectTimeoutMs: 300, statementTimeoutMs: 300, healthCheckIntervalMs: 200 },
      },
    });
    admin = await adminOver(gavel);
  });
  after(async () => {
    await gavel?.close();
    await admin?.close();
    await standIn?.close();
    await bidder?.close();
    if (pool) {
      await dropStoredDataTable(pool, table);
      await pool.end();
    }
  });

  const auction = (tmax: number) => postJson(`${gavel.url}/openrtb2/auction`, { id: 'a', tmax, ext: { prebid: { storedrequest: { id: 'hang-req' } } } });
  const health = () => getJson(`http://127.0.0.1:${admin.port}/health`);

  it('answers 503 naming the stored request within the deadline plus 50 ms, turns /health not ready, and both recover', async () => {
    expect((await auction(500)).status, 'while the database answers').to.equal(200);
    expect((await health()).status).to.equal(200);

    standIn.switchTo('hang');
    for (const tmax of [300, 300, 150]) {
      // Calls of the auction before have ended (their connect timeout): each auction meets the stand-in afresh.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const started = performance.now();
      const answer = await auction(tmax);
      const took = performance.now() - started;
      expect(answer.status, answer.text).to.equal(503);
      // The connections the stand-in dropped fail at once; new ones hang until the deadline (or the connect timeout).
      expect(answer.text).to.match(/^Stored data is unavailable \(stored request "hang-req": the backend (failed|did not answer before the request's deadline)\); try again\.\n$/);
      if (tmax < 300) expect(answer.text).to.contain("did not answer before the request's deadline");
      expect(took, `answered after ${Math.round(took)} ms with tmax ${tmax}`).to.be.below(tmax + 50);
    }
    const down = await eventually('readiness', health, (answer) => answer.status === 503, 3000);
    expect(down.json).to.deep.equal({ status: 'unavailable', backends: { storedData: 'down' } });
    const metrics = await (gavel.app.metrics as PrometheusMetrics).render();
    expect(valueOf(metrics, METRIC_NAMES.backendUp, { backend: 'storedData' })).to.equal(0);

    standIn.switchTo('pass');
    const up = await eventually('readiness', health, (answer) => answer.status === 200, 5000);
    expect(up.json).to.deep.equal({ status: 'ok', backends: { storedData: 'up' } });
    expect((await auction(500)).status).to.equal(200);
  });
});

// Needs this machine's Redis (GAVEL_TEST_REDIS), reached through a stand-in that can stop answering.
describe('Redis down, behind the bid cache', function () {
  this.timeout(40_000);
  const redisUrl = process.env.GAVEL_TEST_REDIS;
  let standIn: TcpStandIn;
  let bidder: MockBidder;
  let gavel: RunningGavel;

  before(async function () {
    if (!redisUrl) this.skip();
    bidder = await startMockBidder();
    standIn = await startTcpStandIn(hostAndPortOf(redisUrl!));
    gavel = await startGavel({
      bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1` } },
      cache: { redis: { url: standIn.url('redis'), keyPrefix: `gavel-test:${process.pid}:` } },
      admin: { requiredBackends: ['storedData', 'cache'] },
    });
  });
  after(async () => {
    await gavel?.close();
    await standIn?.close();
    await bidder?.close();
  });

  const cachedAuction = async () => {
    const started = performance.now();
    const answer = await postJson(`${gavel.url}/openrtb2/auction`, {
      id: 'a',
      tmax: 400,
      site: { page: 'https://news.example/a' },
      imp: [{ id: 'slot-1', banner: { format: [{ w: 300, h: 250 }] }, ext: { alpha: {} } }],
      ext: { prebid: { targeting: { pricegranularity: 'med' }, cache: { bids: {} } } },
    });
    expect(answer.status, answer.text).to.equal(200);
    return { answer, took: performance.now() - started, cacheId: answer.json.seatbid?.[0]?.bid[0]?.ext?.prebid?.targeting?.hb_cache_id as string | undefined };
  };
  const timed = async (count: number) => {
    const runs = [];
    for (let i = 0; i < count; i++) runs.push(await cachedAuction());
    return runs;
  };

  it('skips caching once the breaker opens, staying within 10 ms of normal latency, with the warning in the answer, and recovers', async () => {
    await timed(5);
    const normal = await timed(40);
    expect(normal.every((run) => run.cacheId !== undefined), 'cache ids while Redis answers').to.equal(true);

    standIn.switchTo('hang');
    // The first puts wait for Redis until the breaker opens (or the health check trips it).
    const cacheWarning = async () =>
      ((await cachedAuction()).answer.json.ext.warnings?.general as Array<{ code: number; message: string }> | undefined)?.find((warning) => warning.code === CACHE_UNAVAILABLE_WARNING)?.message;
    await eventually('breaker', cacheWarning, (message) => /skipped/.test(message ?? ''), 10_000);
    const skipped = await timed(40);
    const [normalMs, skippedMs] = [median(normal.map((run) => run.took)), median(skipped.map((run) => run.took))];
    expect(skippedMs - normalMs, `median ${skippedMs.toFixed(1)} ms with Redis down against ${normalMs.toFixed(1)} ms`).to.be.below(10);
    for (const { answer, cacheId } of skipped) {
      expect(cacheId).to.equal(undefined);
      expect(answer.json.ext.warnings.general).to.deep.include({
        code: CACHE_UNAVAILABLE_WARNING,
        message: 'bids were not cached: the bid cache is unavailable (skipped after repeated failures), so hb_cache_id is absent',
      });
    }
    expect(gavel.app.readiness.report().backends.cache).to.equal('down');
    expect(gavel.app.readiness.report().ready, 'the cache is required here').to.equal(false);
    const metrics = await (gavel.app.metrics as PrometheusMetrics).render();
    expect(valueOf(metrics, METRIC_NAMES.cachePuts, { outcome: 'skipped' })).to.be.at.least(40);

    standIn.switchTo('pass');
    await eventually('recovery', async () => (await cachedAuction()).cacheId, (id) => id !== undefined, 10_000);
    expect(gavel.app.readiness.report().ready).to.equal(true);
  });
});
