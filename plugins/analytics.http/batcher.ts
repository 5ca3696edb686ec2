import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { Got } from 'got';
import type { AnalyticsRecord, AnalyticsReporter, ModuleCounter, ModuleDeps, ModuleGauge } from '../../core/api/index.js';

const gzipAsync = promisify(gzip);

// Imported on the first POST: plugin discovery loads every plugin's code, and a host that does not switch this
// module on should not carry got for it.
let loadingGot: Promise<Got> | undefined;
const loadGot = (): Promise<Got> => (loadingGot ??= import('got').then((module) => module.default));

export interface HttpAnalyticsConfig {
  url: string;
  headers?: Record<string, string>;
  types?: Array<AnalyticsRecord['type']>;
  maxBatchRecords?: number;
  maxBatchBytes?: number;
  flushIntervalMs?: number;
  maxQueueRecords?: number;
  timeoutMs?: number;
  retryInitialMs?: number;
  retryMaxMs?: number;
}

export const HTTP_ANALYTICS_DEFAULTS = {
  maxBatchRecords: 100,
  maxBatchBytes: 1_048_576,
  flushIntervalMs: 1000,
  maxQueueRecords: 10_000,
  timeoutMs: 5000,
  retryInitialMs: 500,
  retryMaxMs: 30_000,
} as const;

/** One queued record: its line, and its place in the sequence (so a batch acknowledges exactly what it carried). */
interface Queued {
  seq: number;
  line: string;
}

/**
 * Sends records to a host URL in gzipped NDJSON batches (`content-encoding: gzip`, one record per line), one POST
 * at a time. A batch leaves when it reaches `maxBatchRecords` or `maxBatchBytes`, or `flushIntervalMs` after its
 * first record. A failed POST (network error, timeout, any non-2xx) keeps its records queued and is retried after
 * a wait that doubles from `retryInitialMs` up to `retryMaxMs`; while the sink is down the queue holds at most
 * `maxQueueRecords`, dropping the oldest (counted in `gavel_analytics_http_dropped_total`). On shutdown what is
 * queued is sent without waiting between attempts, within the host's drain time.
 */
export class HttpBatcher implements AnalyticsReporter {
  private readonly settings: Required<Omit<HttpAnalyticsConfig, 'headers' | 'types'>>;
  private readonly types: ReadonlySet<string> | undefined;
  private readonly headers: Record<string, string>;
  private readonly queue: Queued[] = [];
  private nextSeq = 0;
  private sending = false;
  /** The POST out now, if any: shutdown waits for it before sending the rest. */
  private inFlight: Promise<boolean> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private backoffMs = 0;
  private closing = false;
  private readonly dropped: ModuleCounter | undefined;
  private readonly sent: ModuleCounter | undefined;
  private readonly queued: ModuleGauge | undefined;

  constructor(config: HttpAnalyticsConfig, private readonly deps: Pick<ModuleDeps, 'logger' | 'metrics'>) {
    this.settings = { ...HTTP_ANALYTICS_DEFAULTS, ...config };
    this.types = config.types ? new Set(config.types) : undefined;
    this.headers = config.headers ?? {};
    const metrics = deps.metrics;
    this.dropped = metrics?.counter({ name: 'gavel_analytics_http_dropped_total', help: 'Analytics records dropped because the HTTP sink queue was full (oldest first).' });
    this.sent = metrics?.counter({
      name: 'gavel_analytics_http_batches_total',
      help: 'Analytics batches POSTed to the HTTP sink, by outcome.',
      labels: { outcome: ['sent', 'failed'] },
    });
    this.queued = metrics?.gauge({ name: 'gavel_analytics_http_queued_records', help: 'Analytics records waiting for the HTTP sink.' });
  }

  /** Records waiting to be sent (tests and the gauge read it). */
  get queueLength(): number {
    return this.queue.length;
  }

  report(record: AnalyticsRecord): void {
    if (this.closing || (this.types && !this.types.has(record.type))) return;
    this.queue.push({ seq: this.nextSeq++, line: JSON.stringify(record) });
    if (this.queue.length > this.settings.maxQueueRecords) {
      this.queue.shift();
      this.dropped?.inc();
    }
    this.queued?.set(this.queue.length);
    this.schedule();
  }

  /** Sends now when a full batch is waiting, else arms the flush timer; nothing while a POST or a retry wait is on. */
  private schedule(): void {
    if (this.sending || this.retryTimer || this.queue.length === 0) return;
    if (this.queue.length >= this.settings.maxBatchRecords) {
      void this.sendBatch();
      return;
    }
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.sendBatch();
    }, this.settings.flushIntervalMs).unref();
  }

  /** The oldest records that fit one batch (at least one, however large). */
  private nextBatch(): Queued[] {
    const { maxBatchRecords, maxBatchBytes } = this.settings;
    const batch: Queued[] = [];
    let bytes = 0;
    for (const item of this.queue) {
      if (batch.length >= maxBatchRecords) break;
      bytes += Buffer.byteLength(item.line) + 1;
      if (batch.length > 0 && bytes > maxBatchBytes) break;
      batch.push(item);
    }
    return batch;
  }

  /** POSTs one batch; true when the sink took it (its records leave the queue). */
  private async post(batch: Queued[]): Promise<boolean> {
    try {
      const body = await gzipAsync(batch.map((item) => item.line).join('\n') + '\n');
      const got = await loadGot();
      await got.post(this.settings.url, {
        body,
        headers: { ...this.headers, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
        timeout: { request: this.settings.timeoutMs },
        retry: { limit: 0 },
      });
    } catch (err) {
      this.sent?.inc({ outcome: 'failed' });
      this.deps.logger.warn({ err: (err as Error).message, records: batch.length, url: this.settings.url }, 'analytics batch not delivered; will retry');
      return false;
    }
    this.sent?.inc({ outcome: 'sent' });
    const last = batch[batch.length - 1]!.seq;
    // Records dropped while the POST was out are already gone; everything up to the batch's last record is delivered.
    while (this.queue.length > 0 && this.queue[0]!.seq <= last) this.queue.shift();
    this.queued?.set(this.queue.length);
    return true;
  }

  private async sendBatch(): Promise<void> {
    if (this.sending || this.queue.length === 0) return;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.sending = true;
    const posted = this.post(this.nextBatch());
    this.inFlight = posted;
    const delivered = await posted;
    this.sending = false;
    this.inFlight = undefined;
    if (this.closing) return;
    if (delivered) {
      this.backoffMs = 0;
      this.schedule();
      return;
    }
    this.backoffMs = Math.min(this.settings.retryMaxMs, this.backoffMs === 0 ? this.settings.retryInitialMs : this.backoffMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.sendBatch();
    }, this.backoffMs).unref();
  }

  /** Sends what is queued, batch after batch, until the queue is empty or a POST fails (the host bounds the time). */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.flushTimer);
    clearTimeout(this.retryTimer);
    this.flushTimer = this.retryTimer = undefined;
    if (this.inFlight) await this.inFlight;
    while (this.queue.length > 0) {
      this.sending = true;
      const delivered = await this.post(this.nextBatch());
      this.sending = false;
      if (!delivered) break;
    }
  }
}
