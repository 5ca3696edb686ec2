import { expect } from 'chai';
import { register as globalRegistry } from 'prom-client';
import { METRIC_NAMES, NoopMetrics, PrometheusMetrics, type Metrics } from '../../core/metrics/index.js';
import { samplesOf, valueOf } from './exposition.js';

function newMetrics(): PrometheusMetrics {
  return new PrometheusMetrics({
    bidders: ['alpha', 'beta'],
    modules: ['acme.guard', 'acme.floors'],
    routes: ['/openrtb2/auction', '/info/bidders/:name'],
    processMetrics: false,
  });
}

describe('PrometheusMetrics', () => {
  it('counts auctions by endpoint and outcome, and times them in seconds', async () => {
    const metrics = newMetrics();
    metrics.auctionCompleted('auction', 'ok', 120);
    metrics.auctionCompleted('auction', 'ok', 80);
    metrics.auctionCompleted('amp', 'invalid', 3);
    const text = await metrics.render();
    expect(valueOf(text, METRIC_NAMES.auctions, { endpoint: 'auction', outcome: 'ok' })).to.equal(2);
    expect(valueOf(text, METRIC_NAMES.auctions, { endpoint: 'amp', outcome: 'invalid' })).to.equal(1);
    // Zeroed from the start, so rate() works before the first rejection.
    expect(valueOf(text, METRIC_NAMES.auctions, { endpoint: 'video', outcome: 'rejected' })).to.equal(0);
    const duration = METRIC_NAMES.auctionDuration;
    expect(valueOf(text, `${duration}_count`, { endpoint: 'auction' })).to.equal(2);
    expect(valueOf(text, `${duration}_sum`, { endpoint: 'auction' })).to.be.closeTo(0.2, 1e-9);
    expect(valueOf(text, `${duration}_bucket`, { endpoint: 'auction', le: '0.1' })).to.equal(1);
    expect(valueOf(text, `${duration}_bucket`, { endpoint: 'auction', le: '0.2' })).to.equal(2);
  });

  it('counts a duration above the last bucket only in +Inf, and resets every series with the registry', async () => {
    const metrics = newMetrics();
    metrics.auctionCompleted('auction', 'ok', 9000);
    const duration = METRIC_NAMES.auctionDuration;
    let text = await metrics.render();
    expect(valueOf(text, `${duration}_bucket`, { endpoint: 'auction', le: '5' })).to.equal(0);
    expect(valueOf(text, `${duration}_bucket`, { endpoint: 'auction', le: '+Inf' })).to.equal(1);
    expect(valueOf(text, `${duration}_sum`, { endpoint: 'auction' })).to.equal(9);
    metrics.registry.resetMetrics();
    text = await metrics.render();
    expect(valueOf(text, `${duration}_count`, { endpoint: 'auction' })).to.equal(undefined);
  });

  it('counts bidder calls by outcome, times only the calls that were made, and counts bids by media type', async () => {
    const metrics = newMetrics();
    metrics.bidderCall('alpha', 'bid', 45);
    metrics.bidderCall('alpha', 'timeout', 300);
    metrics.bidderCall('beta', 'timeout');
    metrics.bidReceived('alpha', 'banner');
    metrics.bidReceived('alpha', 'banner');
    metrics.bidReceived('alpha', 'video');
    const text = await metrics.render();
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'alpha', outcome: 'bid' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'alpha', outcome: 'timeout' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'beta', outcome: 'timeout' })).to.equal(1);
    expect(valueOf(text, `${METRIC_NAMES.bidderRequestDuration}_count`, { bidder: 'alpha' })).to.equal(2);
    expect(valueOf(text, `${METRIC_NAMES.bidderRequestDuration}_count`, { bidder: 'beta' })).to.equal(undefined);
    expect(valueOf(text, METRIC_NAMES.bidsReceived, { bidder: 'alpha', media_type: 'banner' })).to.equal(2);
    expect(valueOf(text, METRIC_NAMES.bidsReceived, { bidder: 'alpha', media_type: 'video' })).to.equal(1);
  });

  it('counts hook executions, cache puts and HTTP answers with their labels', async () => {
    const metrics = newMetrics();
    metrics.hookOutcome('raw-auction-request', 'acme.guard', 'success');
    metrics.hookOutcome('bidder-request', 'acme.floors', 'timeout');
    metrics.cachePut('ok', 3);
    metrics.cachePut('error', 2);
    metrics.cachePut('ok', 0);
    metrics.httpRequest('/openrtb2/auction', 200);
    metrics.httpRequest('/openrtb2/auction', 200);
    metrics.httpRequest('/info/bidders/:name', 404);
    const text = await metrics.render();
    expect(valueOf(text, METRIC_NAMES.hookExecutions, { stage: 'raw-auction-request', module: 'acme.guard', status: 'success' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.hookExecutions, { stage: 'bidder-request', module: 'acme.floors', status: 'timeout' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.cachePuts, { outcome: 'ok' })).to.equal(2);
    expect(valueOf(text, METRIC_NAMES.cachePuts, { outcome: 'error' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.cachePutValues, { outcome: 'ok' })).to.equal(3);
    expect(valueOf(text, METRIC_NAMES.cachePutValues, { outcome: 'error' })).to.equal(2);
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: '/openrtb2/auction', status: '200' })).to.equal(2);
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: '/info/bidders/:name', status: '404' })).to.equal(1);
  });

  it('records names outside the known lists as "other", so requests cannot grow the number of series', async () => {
    const metrics = newMetrics();
    for (let i = 0; i < 500; i++) {
      metrics.bidderCall(`bidder${i}`, 'error', 1);
      metrics.bidReceived(`bidder${i}`, `rich-media-${i}`);
      metrics.hookOutcome(`stage${i}`, `module${i}`, 'success');
      metrics.httpRequest(`/scan/${i}`, 404);
      metrics.auctionCompleted(`endpoint${i}`, 'ok', 1);
    }
    const text = await metrics.render();
    expect(samplesOf(text, METRIC_NAMES.bidderRequests)).to.have.length(1);
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'other', outcome: 'error' })).to.equal(500);
    expect(valueOf(text, METRIC_NAMES.bidsReceived, { bidder: 'other', media_type: 'other' })).to.equal(500);
    expect(valueOf(text, METRIC_NAMES.hookExecutions, { stage: 'other', module: 'other', status: 'success' })).to.equal(500);
    expect(samplesOf(text, METRIC_NAMES.httpRequests)).to.have.length(1);
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: 'other', status: '404' })).to.equal(500);
    expect(valueOf(text, METRIC_NAMES.auctions, { endpoint: 'other', outcome: 'ok' })).to.equal(500);
  });

  it('takes routes declared after construction, keeping the counts of routes already known', async () => {
    const metrics = newMetrics();
    metrics.httpRequest('/openrtb2/auction', 200);
    metrics.httpRequest('/cache', 200);
    metrics.declareRoutes(['/cache', '/openrtb2/auction']);
    metrics.httpRequest('/openrtb2/auction', 200);
    metrics.httpRequest('/cache', 200);
    const text = await metrics.render();
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: '/openrtb2/auction', status: '200' })).to.equal(2);
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: '/cache', status: '200' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: 'other', status: '200' })).to.equal(1);
  });

  it('matches catalog bidder names in any case, and tolerates odd names and values without throwing', async () => {
    const metrics = newMetrics();
    metrics.bidderCall('Alpha', 'bid', 10);
    metrics.bidderCall('__proto__', 'bid', 10);
    metrics.bidderCall('toString', 'bid', Number.NaN);
    metrics.bidderCall(undefined as unknown as string, 'bid', -5);
    metrics.bidderCall('alpha', 'surprise' as never, Number.POSITIVE_INFINITY);
    metrics.cachePut('ok', Number.NaN);
    metrics.httpRequest('/openrtb2/auction', 42);
    metrics.httpRequest('/openrtb2/auction', Number.NaN);
    const text = await metrics.render();
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'alpha', outcome: 'bid' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'alpha', outcome: 'other' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'other', outcome: 'bid' })).to.equal(3);
    // Only finite, non-negative durations are observed: NaN, -5 and Infinity are counted but not timed.
    expect(valueOf(text, `${METRIC_NAMES.bidderRequestDuration}_count`, { bidder: 'alpha' })).to.equal(1);
    expect(valueOf(text, `${METRIC_NAMES.bidderRequestDuration}_count`, { bidder: 'other' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.cachePutValues, { outcome: 'ok' })).to.equal(undefined);
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: '/openrtb2/auction', status: 'other' })).to.equal(2);
  });

  it('keeps its own registry: two instances do not clash, and the global registry stays empty', async () => {
    const first = newMetrics();
    const second = newMetrics();
    first.cachePut('ok', 1);
    expect(valueOf(await first.render(), METRIC_NAMES.cachePuts, { outcome: 'ok' })).to.equal(1);
    expect(valueOf(await second.render(), METRIC_NAMES.cachePuts, { outcome: 'ok' })).to.equal(0);
    expect(globalRegistry.getSingleMetric(METRIC_NAMES.cachePuts)).to.equal(undefined);
  });

  it('collects the Node process metrics on its registry unless told not to', async () => {
    const withProcess = new PrometheusMetrics({ bidders: [] });
    const text = await withProcess.render();
    expect(samplesOf(text, 'process_cpu_user_seconds_total')).to.have.length(1);
    expect(samplesOf(text, 'nodejs_heap_size_used_bytes')).to.have.length(1);
    expect(samplesOf(await newMetrics().render(), 'process_cpu_user_seconds_total')).to.have.length(0);
    expect(withProcess.contentType).to.match(/^text\/plain; version=0\.0\.4/);
  });
});

describe('NoopMetrics', () => {
  it('accepts every recording call and keeps nothing', () => {
    const metrics: Metrics = new NoopMetrics();
    const calls = [
      () => metrics.auctionCompleted('auction', 'ok', 1),
      () => metrics.bidderCall('alpha', 'bid', 1),
      () => metrics.bidReceived('alpha', 'banner'),
      () => metrics.hookOutcome('entrypoint', 'm', 'success'),
      () => metrics.cachePut('ok', 1),
      () => metrics.httpRequest('/', 200),
      () => metrics.declareRoutes(['/']),
    ];
    for (const call of calls) expect(call()).to.equal(undefined);
    expect(Object.keys(metrics)).to.deep.equal([]);
  });
});
