import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { Tokens } from '../../../core/app/tokens.js';
import type { NamedReporter } from '../../../core/analytics/index.js';
import { bannerRequest, postJson, startGavel, type RunningGavel } from '../../../test/support/gavel.js';
import { eventually } from '../../../test/support/eventually.js';
import { startMockBidder, type MockBidder } from '../../../test/support/mock-bidder.js';
import { HttpBatcher } from '../index.js';
import type { AnalyticsRecord, ModuleCounter } from '../../../core/api/index.js';
import type { PrometheusMetrics } from '../../../core/metrics/index.js';

/** A host's analytics sink on loopback: keeps every record of every batch; `hang` holds requests unanswered. */
class Sink {
  readonly records: Array<Record<string, any>> = [];
  readonly encodings: string[] = [];
  /** Requests received and never answered while hanging. */
  held: IncomingMessage[] = [];
  hang = false;
  private server: Server | undefined;
  port = 0;

  async start(port = 0): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (this.hang) {
          this.held.push(req);
          return;
        }
        this.encodings.push(String(req.headers['content-encoding']));
        const text = gunzipSync(Buffer.concat(chunks)).toString('utf8');
        for (const line of text.split('\n')) if (line) this.records.push(JSON.parse(line));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Stops listening and cuts every connection: the sink is down. */
  async kill(): Promise<void> {
    const server = this.server!;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/collect`;
  }

  auctionIds(): string[] {
    return this.records.filter((record) => record.type === 'auction').map((record) => record.request?.id as string);
  }
}

function batcherOf(gavel: RunningGavel): HttpBatcher {
  const reporters = gavel.app.container.getAll<NamedReporter>(Tokens.AnalyticsReporters);
  return reporters.find((entry) => entry.code === 'analytics.http')!.reporter as HttpBatcher;
}

describe('analytics.http: batches to a host URL', function () {
  this.timeout(20_000);
  let bidder: MockBidder;
  let sink: Sink;
  let gavel: RunningGavel;

  beforeEach(async () => {
    bidder = await startMockBidder();
    sink = new Sink();
    await sink.start();
  });
  afterEach(async () => {
    await gavel?.close();
    await bidder.close();
    await sink.kill().catch(() => undefined);
  });

  async function boot(config: Record<string, unknown>, host: Record<string, unknown> = {}): Promise<void> {
    gavel = await startGavel({
      ...host,
      admin: { enabled: true },
      modules: { 'analytics.http': { enabled: true, config: { url: sink.url, ...config } } },
      bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1.5` } },
    });
  }

  const auction = (id: string) => postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }, { id }));

  it('survives the sink going down: auctions answer, the queue stays bounded (oldest dropped, counted), and what it held arrives when the sink is back', async () => {
    await boot({ flushIntervalMs: 10, maxBatchRecords: 3, maxQueueRecords: 8, retryInitialMs: 20, retryMaxMs: 40, timeoutMs: 300 });
    for (const id of ['a1', 'a2', 'a3']) expect((await auction(id)).status).to.equal(200);
    await eventually('records before the outage', () => sink.auctionIds().sort(), (ids) => ids.join() === 'a1,a2,a3', 5000);
    expect(sink.encodings.every((encoding) => encoding === 'gzip')).to.equal(true);

    const port = sink.port;
    await sink.kill();
    const batcher = batcherOf(gavel);
    const outage = Array.from({ length: 12 }, (_, index) => `b${index + 1}`);
    for (const id of outage) {
      const answer = await auction(id);
      // The auction does not wait for analytics: it answers, with its bid, while the sink is unreachable.
      expect(answer.status).to.equal(200);
      expect(answer.json.seatbid[0].bid[0].price).to.equal(1.5);
      expect(batcher.queueLength).to.be.at.most(8);
    }
    await eventually('queue filled to its bound', () => batcher.queueLength, (length) => length === 8, 5000);
    const metrics = await (gavel.app.metrics as PrometheusMetrics).render();
    expect(metrics).to.match(/^gavel_analytics_http_dropped_total 4$/m);
    expect(metrics).to.match(/^gavel_analytics_http_batches_total\{outcome="failed"\} [1-9]/m);

    const back = new Sink();
    await back.start(port);
    sink = back;
    // The 8 newest records of the outage arrive, each once. The 4 oldest left the queue; one of them arrives only if
    // a batch already on its way when it was dropped (taken before the last records came in) reaches the new sink.
    const newest = outage.slice(4);
    await eventually('records after the outage', () => back.auctionIds(), (ids) => newest.every((id) => ids.includes(id)), 5000);
    const arrived = back.auctionIds();
    expect(new Set(arrived).size, 'no record twice').to.equal(arrived.length);
    expect(arrived.filter((id) => !newest.includes(id)).every((id) => outage.slice(0, 4).includes(id)), `only outage records: ${arrived.join()}`).to.equal(true);
    // The sink holds a batch's records before its answer reaches the batcher, which then lets them go.
    await eventually('queue drained', () => batcher.queueLength, (length) => length === 0, 5000);
  });

  it('keeps auctions off the sink: a sink that never answers holds a batch while auctions go on answering', async () => {
    // Shutdown gives the held POST up after the drain time.
    await boot({ flushIntervalMs: 10, maxBatchRecords: 1, timeoutMs: 10_000 }, { server: { drainTimeoutMs: 300 } });
    sink.hang = true;
    expect((await auction('h1')).status).to.equal(200);
    await eventually('a batch held by the sink', () => sink.held.length, (held) => held === 1, 5000);
    for (const id of ['h2', 'h3', 'h4']) {
      const answer = await auction(id);
      expect(answer.status).to.equal(200);
      expect(answer.json.seatbid[0].bid[0].price).to.equal(1.5);
    }
    // One POST at a time: the other records wait in the queue behind the held batch.
    expect(sink.held.length).to.equal(1);
    await eventually('queued behind the held batch', () => batcherOf(gavel).queueLength, (length) => length === 4, 5000);
  });

  it('flushes what it holds on shutdown', async () => {
    await boot({ flushIntervalMs: 60_000, maxBatchRecords: 100 });
    for (const id of ['s1', 's2']) expect((await auction(id)).status).to.equal(200);
    await eventually('records queued', () => batcherOf(gavel).queueLength, (length) => length === 2, 5000);
    expect(sink.records).to.have.length(0);
    await gavel.close();
    expect(sink.auctionIds().sort()).to.deep.equal(['s1', 's2']);
  });

  it('sends batches no larger than maxBatchRecords', async () => {
    await boot({ flushIntervalMs: 50, maxBatchRecords: 2 });
    for (const id of ['c1', 'c2', 'c3', 'c4', 'c5']) expect((await auction(id)).status).to.equal(200);
    await eventually('all records', () => sink.auctionIds().length, (count) => count === 5, 5000);
    expect(sink.encodings.length).to.be.at.least(3);
  });
});

describe('analytics.http: the batcher alone', function () {
  this.timeout(10_000);
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const record = (id: string, padding = 0): AnalyticsRecord => ({ type: 'setuid', receivedAt: 1, status: 200, bidder: id, query: { pad: 'x'.repeat(padding) } });

  it('cuts batches at maxBatchBytes (a record larger than the limit goes alone)', async () => {
    const sink = new Sink();
    await sink.start();
    const batcher = new HttpBatcher({ url: sink.url, maxBatchBytes: 1024, maxBatchRecords: 100, flushIntervalMs: 5 }, { logger: quiet });
    for (const id of ['a', 'b', 'c', 'd']) batcher.report(record(id, 400));
    batcher.report(record('big', 3000));
    await eventually('all records', () => sink.records.length, (count) => count === 5, 5000);
    // 4 records of ~0.45 kB: two per 1 kB batch; then the large one alone.
    expect(sink.encodings.length).to.equal(3);
    expect(sink.records.map((entry) => entry.bidder)).to.deep.equal(['a', 'b', 'c', 'd', 'big']);
    await sink.kill();
  });

  it('retries a failed POST with a growing wait, and the records arrive once the sink answers', async () => {
    let failures = 2;
    const attempts: number[] = [];
    const received: string[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        attempts.push(performance.now());
        if (failures-- > 0) return void res.writeHead(500).end();
        for (const line of gunzipSync(Buffer.concat(chunks)).toString('utf8').split('\n')) if (line) received.push(JSON.parse(line).bidder);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const outcomes: string[] = [];
    const counter: ModuleCounter = { inc: (labels) => void outcomes.push(labels?.outcome ?? 'dropped') };
    const metrics = { counter: () => counter, gauge: () => ({ set() {} }) };
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const batcher = new HttpBatcher({ url, flushIntervalMs: 1, retryInitialMs: 40, retryMaxMs: 1000 }, { logger: quiet, metrics });
    batcher.report(record('r1'));
    batcher.report(record('r2'));
    await eventually('delivered after two failures', () => received.join(), (text) => text === 'r1,r2', 5000);
    await eventually('the third POST counted as sent', () => outcomes.join(), (text) => text === 'failed,failed,sent', 5000);
    // The second wait is twice the first (40 then 80 ms, give or take the timers).
    const [first, second, third] = attempts as [number, number, number];
    expect(second - first).to.be.at.least(35);
    expect(third - second).to.be.at.least(75);
    server.close();
  });
});
