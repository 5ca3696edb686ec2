import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { Router } from '@koa/router';
import { BidderErrorCode } from '../../core/api/index.js';
import {
  auctionOutcomeLabel,
  bidderCallOutcome,
  httpMetricsMiddleware,
  instrumentCachePut,
  METRIC_NAMES,
  recordBidderSeat,
  PrometheusMetrics,
} from '../../core/metrics/index.js';
import { valueOf } from './exposition.js';

const timeout = { code: BidderErrorCode.Timeout, message: 'Timeout' };
const badResponse = { code: BidderErrorCode.BadServerResponse, message: 'Server error' };

describe('metric labels from the core results', () => {
  it('maps pipeline outcomes to auction labels', () => {
    expect(auctionOutcomeLabel('completed')).to.equal('ok');
    expect(auctionOutcomeLabel('invalid')).to.equal('invalid');
    expect(auctionOutcomeLabel('rejected')).to.equal('rejected');
  });

  it('names a bidder outcome: bids first, then timeouts, then other errors, else no bid', () => {
    expect(bidderCallOutcome(2, [timeout])).to.equal('bid');
    expect(bidderCallOutcome(0, [badResponse, timeout])).to.equal('timeout');
    expect(bidderCallOutcome(0, [badResponse])).to.equal('error');
    expect(bidderCallOutcome(0, [])).to.equal('nobid');
  });

  it('records a seat under its host bidder, timing it only when the bidder was called', async () => {
    const metrics = new PrometheusMetrics({ bidders: ['alpha'], processMetrics: false });
    recordBidderSeat(metrics, { bidder: 'myAlias', adapter: 'alpha', bids: [], errors: [timeout], responseTimeMs: 185 });
    recordBidderSeat(metrics, { bidder: 'alpha', adapter: 'alpha', bids: [], errors: [timeout], responseTimeMs: 0 });
    recordBidderSeat(metrics, { bidder: 'alpha', adapter: 'alpha', bids: [], errors: [], responseTimeMs: 20 });
    const text = await metrics.render();
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'alpha', outcome: 'timeout' })).to.equal(2);
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'alpha', outcome: 'nobid' })).to.equal(1);
    expect(valueOf(text, `${METRIC_NAMES.bidderRequestDuration}_count`, { bidder: 'alpha' })).to.equal(2);
    expect(valueOf(text, `${METRIC_NAMES.bidderRequestDuration}_sum`, { bidder: 'alpha' })).to.be.closeTo(0.205, 1e-9);
  });
});

describe('instrumentCachePut', () => {
  const values = [
    { type: 'json' as const, value: { a: 1 } },
    { type: 'xml' as const, value: '<VAST/>' },
  ];

  it('counts a put as ok when every value got an id, and passes the ids through', async () => {
    const metrics = new PrometheusMetrics({ bidders: [], processMetrics: false });
    const put = instrumentCachePut(async (sent) => sent.map((_, index) => `id-${index}`), metrics);
    expect(await put(values, Date.now() + 100)).to.deep.equal(['id-0', 'id-1']);
    const text = await metrics.render();
    expect(valueOf(text, METRIC_NAMES.cachePuts, { outcome: 'ok' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.cachePutValues, { outcome: 'ok' })).to.equal(2);
  });

  it('counts a put as an error when a value was not stored, or when the put threw', async () => {
    const metrics = new PrometheusMetrics({ bidders: [], processMetrics: false });
    const partial = instrumentCachePut(async () => ['id-0', undefined], metrics);
    expect(await partial(values, Date.now() + 100)).to.deep.equal(['id-0', undefined]);
    const failing = instrumentCachePut(async () => {
      throw new Error('store down');
    }, metrics);
    let thrown: unknown;
    await failing(values, Date.now() + 100).catch((err: unknown) => (thrown = err));
    expect((thrown as Error).message).to.equal('store down');
    const text = await metrics.render();
    expect(valueOf(text, METRIC_NAMES.cachePuts, { outcome: 'error' })).to.equal(2);
    expect(valueOf(text, METRIC_NAMES.cachePutValues, { outcome: 'error' })).to.equal(4);
    expect(valueOf(text, METRIC_NAMES.cachePuts, { outcome: 'ok' })).to.equal(0);
  });
});

describe('httpMetricsMiddleware in a koa app', () => {
  let server: Server;
  let base: string;
  let metrics: PrometheusMetrics;

  before(async () => {
    metrics = new PrometheusMetrics({ bidders: [], routes: ['/openrtb2/auction', '/info/bidders/:name', '/boom'], processMetrics: false });
    const app = new Koa();
    const router = new Router();
    app.use(httpMetricsMiddleware(metrics));
    // The same order as the public app: the error handler inside the metrics, so the metrics see its status.
    app.use(async (ctx, next) => {
      try {
        await next();
      } catch {
        ctx.status = 500;
        ctx.body = 'Critical error.\n';
      }
    });
    app.use(async (ctx, next) => {
      if (ctx.method === 'POST' && ctx.path === '/openrtb2/auction') ctx.body = { id: 'x' };
      else await next();
    });
    router.get('/info/bidders/:name', (ctx) => {
      ctx.body = { name: ctx.params.name };
    });
    router.get('/boom', () => {
      throw new Error('boom');
    });
    app.use(router.routes());
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('labels answers with the route pattern and the final status', async () => {
    await fetch(`${base}/openrtb2/auction`, { method: 'POST', body: '{}' }).then((r) => r.text());
    await fetch(`${base}/info/bidders/alpha`).then((r) => r.text());
    await fetch(`${base}/info/bidders/beta`).then((r) => r.text());
    await fetch(`${base}/boom`).then((r) => r.text());
    await fetch(`${base}/wp-login.php`).then((r) => r.text());
    const text = await metrics.render();
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: '/openrtb2/auction', status: '200' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: '/info/bidders/:name', status: '200' })).to.equal(2);
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: '/boom', status: '500' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: 'other', status: '404' })).to.equal(1);
  });
});
