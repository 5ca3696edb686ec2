import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';
import { MEDIA_TYPES, STAGES } from '../api/index.js';
import { BACKENDS, type BackendStatus } from './readiness.js';

export const AUCTION_OUTCOMES = ['ok', 'invalid', 'rejected', 'failed'] as const;
export type AuctionOutcomeLabel = (typeof AUCTION_OUTCOMES)[number];
export const BIDDER_CALL_OUTCOMES = ['bid', 'nobid', 'timeout', 'error'] as const;
export type BidderCallOutcome = (typeof BIDDER_CALL_OUTCOMES)[number];
/** The statuses the hook executor records for each hook it ran. */
export const HOOK_STATUSES = ['success', 'timeout', 'failure', 'rejected'] as const;
export type HookStatus = (typeof HOOK_STATUSES)[number];
export const CACHE_PUT_OUTCOMES = ['ok', 'error', 'skipped'] as const;
export type CachePutOutcome = (typeof CACHE_PUT_OUTCOMES)[number];
export const ENDPOINTS = ['auction', 'amp', 'video'] as const;
/**
 * Work refused or cut short to protect the process: a bidder call failed at once (its host's queue full) or aborted
 * at its auction's deadline; a request answered 503 (too many auctions in flight, event loop too slow); a cache put
 * over its client's rate.
 */
export const SHED_REASONS = ['bidder-queue-full', 'bidder-deadline', 'auctions-in-flight', 'event-loop-delay', 'cache-rate-limit'] as const;
export type ShedLabel = (typeof SHED_REASONS)[number];

/** The label value for anything outside a label's known list. */
export const OTHER = 'other';

/** Every metric Gavel records, by name: the names operators alert on, so they are part of the contract. */
export const METRIC_NAMES = {
  auctions: 'gavel_auctions_total',
  auctionDuration: 'gavel_auction_duration_seconds',
  bidderRequests: 'gavel_bidder_requests_total',
  bidderRequestDuration: 'gavel_bidder_request_duration_seconds',
  bidsReceived: 'gavel_bids_received_total',
  hookExecutions: 'gavel_hook_executions_total',
  cachePuts: 'gavel_cache_puts_total',
  cachePutValues: 'gavel_cache_put_values_total',
  httpRequests: 'gavel_http_requests_total',
  backendUp: 'gavel_backend_up',
  workerRestarts: 'gavel_worker_restarts_total',
  workersListening: 'gavel_workers_listening',
  primaryMemory: 'gavel_primary_resident_memory_bytes',
  shed: 'gavel_shed_total',
} as const;

/**
 * What the server records while it works. Every method is called on the hot path: implementations must be cheap,
 * must never throw, and must keep label values to bounded sets (a request must never be able to add a series).
 */
export interface Metrics {
  /** One auction through the pipeline, from the request's arrival to its outcome. */
  auctionCompleted(endpoint: string, outcome: AuctionOutcomeLabel, durationMs: number): void;
  /** One bidder's part in one auction. Without `durationMs` it is counted but not timed (the bidder was never called). */
  bidderCall(bidder: string, outcome: BidderCallOutcome, durationMs?: number): void;
  /** One bid as the bidder's adapter read it, before any module adjusted or dropped it. */
  bidReceived(bidder: string, mediaType: string): void;
  hookOutcome(stage: string, module: string, status: HookStatus): void;
  /** One put to the bid cache carrying `count` values. */
  cachePut(outcome: CachePutOutcome, count: number): void;
  /** One answer of the public HTTP listener; `route` is the route's pattern, not the raw path. */
  httpRequest(route: string, status: number): void;
  /** The public listener's route patterns, declared by the HTTP edge from its routing table; other routes are recorded as 'other'. */
  declareRoutes(routes: Iterable<string>): void;
  /** Shows a backend's state (up 1, down 0), read at each scrape. */
  watchBackend(status: BackendStatus): void;
  /** Work refused or cut short to protect the process (SHED_REASONS). */
  shed(reason: ShedLabel): void;
}

/** What the admin server serves on GET /metrics. */
export interface MetricsExposition {
  readonly contentType: string;
  render(): Promise<string>;
}

/** Records nothing: for tests, and for hosts that switch the admin port off. */
export class NoopMetrics implements Metrics {
  auctionCompleted(): void {}
  bidderCall(): void {}
  bidReceived(): void {}
  hookOutcome(): void {}
  cachePut(): void {}
  httpRequest(): void {}
  declareRoutes(): void {}
  watchBackend(): void {}
  shed(): void {}
}

/**
 * One child per allowed label value, made at construction, plus one for 'other'. Recording is then a map lookup on
 * an existing child: no labels object per call, and no way for an unknown value to add a series.
 */
class ChildrenByValue<C> {
  private readonly children = new Map<string, C>();
  private readonly other: C;

  constructor(values: Iterable<string>, private readonly make: (value: string) => C, private readonly ignoreCase = false) {
    this.add(values);
    this.other = make(OTHER);
  }

  /** Allows more values (known only later in boot); values already allowed keep their child. */
  add(values: Iterable<string>): void {
    for (const value of values) {
      const key = this.ignoreCase ? value.toLowerCase() : value;
      if (key !== OTHER && !this.children.has(key)) this.children.set(key, this.make(key));
    }
  }

  get(value: string): C {
    const exact = this.children.get(value);
    if (exact !== undefined) return exact;
    // Only names spelt in an unusual case reach this; the common path allocates nothing.
    return (this.ignoreCase && typeof value === 'string' ? this.children.get(value.toLowerCase()) : undefined) ?? this.other;
  }
}

/** One counter series, kept as a plain number: an increment on the hot path is one addition. */
class CounterCell {
  value = 0;
  constructor(readonly labels: Readonly<Record<string, string>>, readonly alwaysShown: boolean) {}
}

/**
 * A prom-client counter whose series live in cells and are copied into it when the registry is read (its `collect`
 * hook). prom-client's own `inc` hashes and checks the labels on every call (about 200 ns measured); a cell costs a
 * few ns, and a scrape pays once per series instead. A series appears once counted, or from the start when made
 * `alwaysShown` (so `rate()` has a zero to start from).
 */
class CellCounter<L extends string> {
  private readonly cells: CounterCell[] = [];

  constructor(name: string, help: string, private readonly labelNames: readonly L[], registry: Registry) {
    const cells = this.cells;
    // The counter registers itself on the registry; nothing else holds it.
    new Counter<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const cell of cells) if (cell.value > 0 || cell.alwaysShown) this.inc(cell.labels as Partial<Record<L, string>>, cell.value);
      },
    });
  }

  /** A new series; the caller keeps it (label values must already be bounded). */
  cell(labelValues: readonly string[], alwaysShown = false): CounterCell {
    const labels: Record<string, string> = {};
    this.labelNames.forEach((label, index) => (labels[label] = labelValues[index]!));
    const cell = new CounterCell(labels, alwaysShown);
    this.cells.push(cell);
    return cell;
  }
}

/** One histogram series as plain numbers: an observation is a bucket search and three additions. */
class HistogramCell {
  sum = 0;
  count = 0;
  /** Observations per bucket, not cumulative; above the last bound they count only in +Inf (`count`). */
  readonly perBucket: number[];

  constructor(readonly labels: Readonly<Record<string, string>>, private readonly bounds: readonly number[]) {
    this.perBucket = new Array<number>(bounds.length).fill(0);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.perBucket[i]!++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }
}

/**
 * A histogram with one label whose series are cells, read by the registry at scrape time through `get` (the shape
 * prom-client's own histograms give: cumulative `_bucket` lines with `le`, then `_sum` and `_count`). prom-client's
 * `observe` hashes the labels and allocates on every call (about half a microsecond measured, several per auction);
 * a cell costs a few ns. A series appears once observed.
 */
/** One line of a histogram's exposition, as prom-client's registry reads it from `get`. */
interface HistogramSample {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

class CellHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly cells: HistogramCell[] = [];

  constructor(readonly name: string, readonly help: string, private readonly labelName: string, private readonly bounds: readonly number[], registry: Registry) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** A new series; the caller keeps it (label values must already be bounded). */
  cell(labelValue: string): HistogramCell {
    const cell = new HistogramCell({ [this.labelName]: labelValue }, this.bounds);
    this.cells.push(cell);
    return cell;
  }

  async get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: HistogramSample[] }> {
    const { name, bounds } = this;
    const values: HistogramSample[] = [];
    for (const cell of this.cells) {
      if (cell.count === 0) continue;
      let cumulative = 0;
      for (let i = 0; i < bounds.length; i++) {
        cumulative += cell.perBucket[i]!;
        values.push({ metricName: `${name}_bucket`, labels: { ...cell.labels, le: bounds[i]! }, value: cumulative });
      }
      values.push({ metricName: `${name}_bucket`, labels: { ...cell.labels, le: '+Inf' }, value: cell.count });
      values.push({ metricName: `${name}_sum`, labels: cell.labels, value: cell.sum });
      values.push({ metricName: `${name}_count`, labels: cell.labels, value: cell.count });
    }
    return { name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    for (const cell of this.cells) {
      cell.sum = 0;
      cell.count = 0;
      cell.perBucket.fill(0);
    }
  }
}


interface EndpointSeries {
  outcomes: ChildrenByValue<CounterCell>;
  duration: HistogramCell;
}

interface BidderSeries {
  outcomes: ChildrenByValue<CounterCell>;
  duration: HistogramCell;
  bids: ChildrenByValue<CounterCell>;
}

interface CacheSeries {
  puts: CounterCell;
  values: CounterCell;
}

function isHttpStatus(status: number): boolean {
  return Number.isInteger(status) && status >= 100 && status <= 599;
}

/** Status codes of one route, made on first use: bounded by the HTTP range (anything else is 'other'). */
class StatusCells {
  private readonly byStatus = new Map<number, CounterCell>();
  private readonly other: CounterCell;

  constructor(private readonly counter: CellCounter<'route' | 'status'>, private readonly route: string) {
    this.other = counter.cell([route, OTHER]);
  }

  get(status: number): CounterCell {
    const known = this.byStatus.get(status);
    if (known !== undefined) return known;
    if (!isHttpStatus(status)) return this.other;
    const cell = this.counter.cell([this.route, String(status)]);
    this.byStatus.set(status, cell);
    return cell;
  }
}

/** Latency buckets in seconds, around typical tmax values (a few hundred ms to a few seconds). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5];

export interface PrometheusMetricsOptions {
  /** The host's bidder names (the catalog, never a request): any other name is recorded as 'other'. */
  bidders: Iterable<string>;
  /** Installed module codes; other codes are recorded as 'other'. */
  modules?: Iterable<string>;
  /** Route patterns of the public listener (`/openrtb2/auction`, `/info/bidders/:name`, ...); others are 'other'. More may be declared later with `declareRoutes`. */
  routes?: Iterable<string>;
  /** Node process metrics (CPU, memory, event-loop lag, GC) on the same registry. Default true. */
  processMetrics?: boolean;
}

function isDuration(ms: number | undefined): ms is number {
  return typeof ms === 'number' && ms >= 0 && ms < Infinity;
}

/**
 * Metrics on a registry of their own (never prom-client's global one), so two instances in a process never clash.
 * Counters and the two latency histograms are cells (see CellCounter and CellHistogram), read at scrape time.
 */
export class PrometheusMetrics implements Metrics, MetricsExposition {
  readonly registry = new Registry();
  private readonly endpoints: ChildrenByValue<EndpointSeries>;
  private readonly bidders: ChildrenByValue<BidderSeries>;
  private readonly hooks: ChildrenByValue<ChildrenByValue<ChildrenByValue<CounterCell>>>;
  private readonly cache: ChildrenByValue<CacheSeries>;
  private readonly http: ChildrenByValue<StatusCells>;
  private readonly backends = new Map<string, BackendStatus>();
  private readonly shedding: ChildrenByValue<CounterCell>;

  constructor(options: PrometheusMetricsOptions) {
    const registry = this.registry;
    if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
    const latency = (name: string, help: string, label: string) => new CellHistogram(name, help, label, LATENCY_BUCKETS, registry);

    const auctions = new CellCounter(METRIC_NAMES.auctions, 'Auctions run through the pipeline, by endpoint and outcome.', ['endpoint', 'outcome'], registry);
    const auctionDuration = latency(METRIC_NAMES.auctionDuration, 'Time from the request arriving to the auction outcome.', 'endpoint');
    const known = new Set<string>(ENDPOINTS);
    this.endpoints = new ChildrenByValue(ENDPOINTS, (endpoint) => ({
      outcomes: new ChildrenByValue(AUCTION_OUTCOMES, (outcome) => auctions.cell([endpoint, outcome], known.has(endpoint) && outcome !== OTHER)),
      duration: auctionDuration.cell(endpoint),
    }));

    const bidderRequests = new CellCounter(METRIC_NAMES.bidderRequests, 'Each bidder\'s part in each auction, by bidder and outcome.', ['bidder', 'outcome'], registry);
    const bidderDuration = latency(METRIC_NAMES.bidderRequestDuration, 'Time a bidder took to answer; a bidder still out at the deadline is timed at the deadline.', 'bidder');
    const bids = new CellCounter(METRIC_NAMES.bidsReceived, 'Bids returned by bidders (before adjust-bids), by bidder and media type.', ['bidder', 'media_type'], registry);
    this.bidders = new ChildrenByValue(
      options.bidders,
      (bidder) => ({
        outcomes: new ChildrenByValue(BIDDER_CALL_OUTCOMES, (outcome) => bidderRequests.cell([bidder, outcome])),
        duration: bidderDuration.cell(bidder),
        bids: new ChildrenByValue(MEDIA_TYPES, (mediaType) => bids.cell([bidder, mediaType])),
      }),
      true,
    );

    const hookExecutions = new CellCounter(METRIC_NAMES.hookExecutions, 'Module hooks run, by stage, module and status.', ['stage', 'module', 'status'], registry);
    const modules = [...(options.modules ?? [])];
    this.hooks = new ChildrenByValue(STAGES, (stage) =>
      new ChildrenByValue(modules, (module) => new ChildrenByValue(HOOK_STATUSES, (status) => hookExecutions.cell([stage, module, status]))),
    );

    const cachePuts = new CellCounter(METRIC_NAMES.cachePuts, 'Puts to the bid cache, by outcome (error: at least one value not stored).', ['outcome'], registry);
    const cacheValues = new CellCounter(METRIC_NAMES.cachePutValues, 'Values carried by puts to the bid cache, by the outcome of their put.', ['outcome'], registry);
    this.cache = new ChildrenByValue(CACHE_PUT_OUTCOMES, (outcome) => ({
      puts: cachePuts.cell([outcome], outcome !== OTHER),
      values: cacheValues.cell([outcome]),
    }));

    const httpRequests = new CellCounter(METRIC_NAMES.httpRequests, 'Answers of the public HTTP listener, by route and status.', ['route', 'status'], registry);
    this.http = new ChildrenByValue(options.routes ?? [], (route) => new StatusCells(httpRequests, route));

    const shed = new CellCounter(METRIC_NAMES.shed, 'Work refused or cut short to protect the process, by reason.', ['reason'], registry);
    this.shedding = new ChildrenByValue(SHED_REASONS, (reason) => shed.cell([reason], reason !== OTHER));

    const backends = this.backends;
    new Gauge({
      name: METRIC_NAMES.backendUp,
      help: `Whether a backend answers (1) or not (0): ${BACKENDS.join(', ')}; only the backends this host uses. Across workers, the lowest.`,
      labelNames: ['backend'],
      registers: [registry],
      aggregator: 'min',
      collect() {
        this.reset();
        for (const [name, status] of backends) this.set({ backend: name }, status.up ? 1 : 0);
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  auctionCompleted(endpoint: string, outcome: AuctionOutcomeLabel, durationMs: number): void {
    const series = this.endpoints.get(endpoint);
    series.outcomes.get(outcome).value++;
    if (isDuration(durationMs)) series.duration.observe(durationMs / 1000);
  }

  bidderCall(bidder: string, outcome: BidderCallOutcome, durationMs?: number): void {
    const series = this.bidders.get(bidder);
    series.outcomes.get(outcome).value++;
    if (isDuration(durationMs)) series.duration.observe(durationMs / 1000);
  }

  bidReceived(bidder: string, mediaType: string): void {
    this.bidders.get(bidder).bids.get(mediaType).value++;
  }

  hookOutcome(stage: string, module: string, status: HookStatus): void {
    this.hooks.get(stage).get(module).get(status).value++;
  }

  cachePut(outcome: CachePutOutcome, count: number): void {
    const series = this.cache.get(outcome);
    series.puts.value++;
    if (count > 0 && count < Infinity) series.values.value += count;
  }

  httpRequest(route: string, status: number): void {
    this.http.get(route).get(status).value++;
  }

  declareRoutes(routes: Iterable<string>): void {
    this.http.add(routes);
  }

  watchBackend(status: BackendStatus): void {
    this.backends.set(status.name, status);
  }

  shed(reason: ShedLabel): void {
    this.shedding.get(reason).value++;
  }
}
