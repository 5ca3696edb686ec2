import { isJsonObject, type PluginLogger } from '../api/index.js';
import { getJson } from './http-fetcher.js';
import type { ChangeFeed, InvalidationSink, StoredChange } from './invalidation.js';
import { kindOfPlural } from './invalidation.js';

export interface HttpChangeFeedOptions {
  /** Answers `GET <url>?last-modified=<RFC 3339 time>` with the ids changed or deleted since then (see below). */
  url: string;
  intervalMs: number;
  timeoutMs: number;
  sink: InvalidationSink;
  logger: PluginLogger;
  now?: () => number;
}

/** Clocks of two machines differ: changes are asked for with this overlap. */
const OVERLAP_MS = 2000;

/**
 * Tells the stored-data cache what changed behind the HTTP backend, as Prebid Server's `http_events` do: every
 * `intervalMs` it asks `GET <url>?last-modified=<time>` and invalidates every id named in the answer,
 * `{"requests": {"<id>": <document or null>}, "imps": {...}, "accounts": {...}, "responses": {...}}` (the values are
 * not used: the next fetch reads the document anew).
 */
export class HttpChangeFeed implements ChangeFeed {
  private timer: NodeJS.Timeout | undefined;
  private since: number;
  private ok = false;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly options: HttpChangeFeedOptions) {
    this.now = options.now ?? Date.now;
    this.since = this.now();
  }

  get connected(): boolean {
    return this.ok;
  }

  start(): void {
    this.schedule();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
  }

  /** Asks once for what changed (the timer's work; tests call it directly). */
  async poll(): Promise<void> {
    const askedAt = this.now();
    const url = new URL(this.options.url);
    url.searchParams.set('last-modified', new Date(this.since - OVERLAP_MS).toISOString());
    try {
      const answer = await getJson(url, this.options.timeoutMs);
      const changes = changesIn(answer);
      if (changes.length > 0) this.options.sink(changes);
      this.since = askedAt;
      if (!this.ok) this.options.logger.info({ url: this.options.url }, 'stored data: following HTTP change events');
      this.ok = true;
    } catch (err) {
      if (this.ok) this.options.logger.warn({ err, url: this.options.url }, 'stored data: HTTP change events failed; retrying');
      this.ok = false;
    }
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.poll().then(() => this.schedule()), this.options.intervalMs);
    this.timer.unref();
  }
}

function changesIn(answer: unknown): StoredChange[] {
  const changes: StoredChange[] = [];
  if (!isJsonObject(answer)) return changes;
  for (const [member, documents] of Object.entries(answer)) {
    const kind = kindOfPlural(member);
    if (!kind || !isJsonObject(documents)) continue;
    for (const id of Object.keys(documents)) changes.push({ kind, id });
  }
  return changes;
}
