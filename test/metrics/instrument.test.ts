import { expect } from 'chai';
import { CACHE_UNAVAILABLE_WARNING } from '../../core/cache/index.js';
import { BidderErrorCode } from '../../core/api/index.js';
import {
  auctionOutcomeLabel,
  bidderCallOutcome,
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

  it('counts a put the breaker skipped as skipped, and warns the request with a code, once per put', async () => {
    const metrics = new PrometheusMetrics({ bidders: [], processMetrics: false });
    const warnings: Array<{ scope: string; code: number; message: string }> = [];
    const context = { warn: (scope: string, warning: { code: number; message: string }) => void warnings.push({ scope, ...warning }) };
    const skipped = instrumentCachePut(async (sent, _deadline, report) => {
      report?.('skipped');
      report?.('skipped');
      return sent.map(() => undefined);
    }, metrics);
    expect(await skipped(values, Date.now() + 100, context)).to.deep.equal([undefined, undefined]);
    const failed = instrumentCachePut(async (sent, _deadline, report) => {
      report?.('failed');
      return sent.map(() => undefined);
    }, metrics);
    await failed(values, Date.now() + 100, context);
    const text = await metrics.render();
    expect(valueOf(text, METRIC_NAMES.cachePuts, { outcome: 'skipped' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.cachePuts, { outcome: 'error' })).to.equal(1);
    expect(warnings.map(({ scope, code }) => ({ scope, code }))).to.deep.equal([
      { scope: 'general', code: CACHE_UNAVAILABLE_WARNING },
      { scope: 'general', code: CACHE_UNAVAILABLE_WARNING },
    ]);
    expect(warnings[0]!.message).to.contain('unavailable');
  });
});
