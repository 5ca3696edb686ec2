import type { Worker } from 'node:cluster';
import { AggregatorRegistry, Counter, Gauge, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { METRIC_NAMES, type MetricsExposition, type PrometheusMetrics } from './metrics.js';

/**
 * With `server.workers > 1` each worker records into its own registry, and a scrape of a port the workers shared
 * would reach one worker at random. So the cluster primary serves the admin port alone and asks every worker for
 * its metrics over the cluster's IPC channel, summing them into one exposition.
 *
 * Counters never go backwards across a worker's death: the primary keeps each worker's last snapshot (taken at every
 * scrape and every few seconds), and when a worker exits its counters and histograms stay in the sum, as `retired`.
 * What a killed worker counted after its last snapshot is lost (a few seconds at most); the sum never decreases.
 */

type Snapshot = MetricObjectWithValues<MetricValue<string>>[];

const REQUEST = 'gavel:metrics?';
const REPLY = 'gavel:metrics';

interface MetricsRequest {
  gavel: typeof REQUEST;
  id: number;
}
interface MetricsReply {
  gavel: typeof REPLY;
  id: number;
  metrics: Snapshot;
}

let workerRegistry: Registry | undefined;
let answering = false;

/**
 * In a cluster worker, first thing: answer the primary's metric requests (with nothing yet), so a scrape during this
 * worker's boot gets a prompt, partial answer instead of waiting for the primary's timeout.
 */
export function answerClusterScrapes(): void {
  if (answering) return;
  answering = true;
  process.on('message', (message: unknown) => {
    if ((message as MetricsRequest | null)?.gavel !== REQUEST) return;
    const { id } = message as MetricsRequest;
    const reply = (metrics: Snapshot) => process.send?.({ gavel: REPLY, id, metrics } satisfies MetricsReply);
    if (!workerRegistry) reply([]);
    else workerRegistry.getMetricsAsJSON().then(reply, () => reply([]));
  });
}

/** In a cluster worker, once booted: answer the primary's metric requests from this registry. */
export function shareWithClusterPrimary(metrics: PrometheusMetrics): void {
  workerRegistry = metrics.registry;
  answerClusterScrapes();
}

export interface ClusterMetricsOptions {
  /** Longest wait for one worker's answer; a worker that does not answer counts with its last snapshot. */
  timeoutMs?: number;
  /** How often every worker's snapshot is refreshed between scrapes. */
  snapshotEveryMs?: number;
}

interface LiveWorker {
  worker: Worker;
  /** The slot it fills (1..N): a replacement takes the slot of the worker it replaces. */
  slot: number;
  snapshot: Snapshot;
  listening: boolean;
}

/** In the cluster primary: the exposition the admin server serves, gathered from every worker per scrape. */
export class ClusterMetrics implements MetricsExposition {
  /** The primary's own series: restarts, listening workers, its memory. */
  readonly registry = new Registry();
  private readonly live = new Map<number, LiveWorker>();
  private retired: Snapshot = [];
  private nextRequestId = 1;
  private readonly pending = new Map<number, (snapshot: Snapshot | undefined) => void>();
  private readonly timeoutMs: number;
  private readonly restarts: Counter;
  private readonly timer: NodeJS.Timeout;
  /** Retirements run one after another: each one folds into the total the one before left. */
  private retiring: Promise<void> = Promise.resolve();

  constructor(options: ClusterMetricsOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 1000;
    this.restarts = new Counter({ name: METRIC_NAMES.workerRestarts, help: 'Workers the primary started again after one exited.', registers: [this.registry] });
    const live = this.live;
    new Gauge({
      name: METRIC_NAMES.workersListening,
      help: 'Workers serving the public port.',
      registers: [this.registry],
      collect() {
        this.set([...live.values()].filter((entry) => entry.listening).length);
      },
    });
    new Gauge({
      name: METRIC_NAMES.primaryMemory,
      help: 'Resident memory of the cluster primary (each worker reports its own as process_resident_memory_bytes).',
      registers: [this.registry],
      collect() {
        this.set(process.memoryUsage.rss());
      },
    });
    this.timer = setInterval(() => void this.refresh(), options.snapshotEveryMs ?? 5000);
    this.timer.unref();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Follows a worker from its fork: its metrics count from now on. */
  attach(worker: Worker, slot: number): void {
    const entry: LiveWorker = { worker, slot, snapshot: [], listening: false };
    this.live.set(worker.id, entry);
    worker.once('listening', () => (entry.listening = true));
    worker.on('message', (message: unknown) => {
      if ((message as MetricsReply | null)?.gavel !== REPLY) return;
      const { id, metrics } = message as MetricsReply;
      this.pending.get(id)?.(metrics);
    });
  }

  /** A worker exited: what it had counted stays in the sum. */
  retire(worker: Worker, restarted: boolean): Promise<void> {
    const entry = this.live.get(worker.id);
    this.live.delete(worker.id);
    if (restarted) this.restarts.inc();
    if (!entry) return this.retiring;
    const kept = monotonicOnly(entry.snapshot);
    this.retiring = this.retiring.then(async () => {
      this.retired = await AggregatorRegistry.aggregate([this.retired, kept]).getMetricsAsJSON() as Snapshot;
    });
    return this.retiring;
  }

  async render(): Promise<string> {
    await this.refresh();
    await this.retiring;
    const snapshots = [...[...this.live.values()].map((entry) => entry.snapshot), this.retired, (await this.registry.getMetricsAsJSON()) as Snapshot];
    return AggregatorRegistry.aggregate(snapshots).metrics();
  }

  /** Each worker's series apart, labelled `worker="<slot>"`; what exited workers counted as `worker="retired"`, the primary's own as `worker="primary"`. */
  readonly workers: MetricsExposition = {
    contentType: this.registry.contentType,
    render: async () => {
      await this.refresh();
      await this.retiring;
      const labelled = [...this.live.values()].map((entry) => withLabel(entry.snapshot, String(entry.slot)));
      labelled.push(withLabel(this.retired, 'retired'), withLabel((await this.registry.getMetricsAsJSON()) as Snapshot, 'primary'));
      return AggregatorRegistry.aggregate(labelled).metrics();
    },
  };

  close(): void {
    clearInterval(this.timer);
  }

  /** Asks every live worker for its metrics; a worker that does not answer in time keeps its last snapshot. */
  private async refresh(): Promise<void> {
    await Promise.all(
      [...this.live.values()].map(async (entry) => {
        const snapshot = await this.ask(entry.worker);
        // A worker that exited meanwhile was retired with the snapshot it had: keep that one.
        if (snapshot && this.live.get(entry.worker.id) === entry) entry.snapshot = snapshot;
      }),
    );
  }

  private ask(worker: Worker): Promise<Snapshot | undefined> {
    if (!worker.isConnected()) return Promise.resolve(undefined);
    const id = this.nextRequestId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), this.timeoutMs);
      const done = (snapshot: Snapshot | undefined) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(snapshot);
      };
      this.pending.set(id, done);
      try {
        // With a callback, a worker whose channel closed meanwhile (it died after the check above) fails this ask
        // alone; without one, node raises the failure as the worker's 'error' event.
        worker.send({ gavel: REQUEST, id } satisfies MetricsRequest, (err: Error | null) => {
          if (err) done(undefined);
        });
      } catch {
        done(undefined);
      }
    });
  }
}

/** Counters and histograms only: a dead worker's gauges (its memory, its event-loop lag) describe nothing any more. */
function monotonicOnly(snapshot: Snapshot): Snapshot {
  return snapshot.filter((metric) => String(metric.type) === 'counter' || String(metric.type) === 'histogram');
}

function withLabel(snapshot: Snapshot, worker: string): Snapshot {
  return snapshot.map((metric) => ({
    ...metric,
    // Kept apart per worker: a series summed, averaged or left out across workers would hide the differences.
    aggregator: 'sum',
    values: metric.values.map((value) => ({ ...value, labels: { ...value.labels, worker } })),
  }));
}
