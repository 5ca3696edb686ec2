import type { Client, ClientConfig, Notification } from 'pg';
import { isJsonObject, type PluginLogger } from '../api/index.js';
import { STORED_KINDS, type StoredKind } from './fetcher.js';
import type { ChangeFeed, InvalidationSink, StoredChange } from './invalidation.js';
import { CHANGES_CHANNEL, tableNames } from './migrations.js';
import type { PgQueryable } from './postgres-fetcher.js';

export interface PostgresChangeFeedOptions {
  /** The pool queries run on (the polls). */
  pool: PgQueryable;
  /** Makes the dedicated LISTEN connection; undefined turns notifications off (polling only). */
  listenClient?: () => Client;
  /** The stored-data table, as configured. */
  table?: string;
  /**
   * Replaces the poll query. `$1` is a time in epoch seconds (float8); it returns rows `kind`, `id`, `at` (epoch
   * seconds of the change) for every document created, changed or deleted after it (kind `*` = everything).
   */
  changesQuery?: string;
  /** How often changes are polled while notifications are not coming in. 0 turns polling off. */
  pollIntervalMs: number;
  /** How often they are polled while notifications are up: a safety net for a notification lost in transit. */
  safetyPollIntervalMs?: number;
  sink: InvalidationSink;
  logger: PluginLogger;
}

/** A write's time and the moment it is seen can differ by its transaction's length: changes are read with this overlap. */
const POLL_OVERLAP_SECONDS = 5;
const SAFETY_POLL_MS = 30_000;
/** How often the LISTEN connection is checked, and how long the check may take. */
const LISTENER_CHECK_MS = 10_000;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;
const KINDS = new Set<string>(STORED_KINDS);

/**
 * Tells the stored-data cache what changed in PostgreSQL, within a second:
 * - LISTEN on `gavel_stored_data`, which the migration's trigger notifies on every insert, update, delete and
 *   truncate: changes arrive within milliseconds;
 * - polling `updated_at` (and the deletions table) as Prebid Server polls `last_updated`: every `pollIntervalMs`
 *   while the LISTEN connection is down or off, once at each (re)connection to catch up on the gap, and every
 *   30 s as a safety net. Changes seen by both are invalidated once.
 */
export class PostgresChangeFeed implements ChangeFeed {
  private listener: Client | undefined;
  private listening = false;
  private closed = false;
  private reconnectDelay = RECONNECT_MIN_MS;
  private pollTimer: NodeJS.Timeout | undefined;
  private listenerCheck: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /** Epoch seconds (database clock) of the newest change seen; undefined until the first poll has set it. */
  private cursor: number | undefined;
  /** Changes already acted on within the overlap window: `kind:id` -> change time. */
  private readonly seen = new Map<string, number>();
  private polling: Promise<void> | undefined;
  private pollFailureLogged = false;
  private readonly changesQuery: string;
  private readonly table: string;

  constructor(private readonly options: PostgresChangeFeedOptions) {
    const names = tableNames(options.table);
    this.table = names.base;
    this.changesQuery =
      options.changesQuery ??
      `SELECT kind, id, extract(epoch FROM updated_at)::float8 AS at FROM ${names.table} WHERE updated_at > to_timestamp($1::float8)
       UNION ALL
       SELECT kind, id, extract(epoch FROM deleted_at)::float8 AS at FROM ${names.deletions} WHERE deleted_at > to_timestamp($1::float8)`;
  }

  get connected(): boolean {
    return this.listening;
  }

  /** Starts listening and polling. Resolves once the first attempt at both is over (never rejects). */
  async start(): Promise<void> {
    await this.poll();
    if (this.options.listenClient) await this.connect();
    this.schedulePoll();
  }

  /** Runs one poll now (tests, and the catch-up after a reconnection). */
  poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => (this.polling = undefined));
    return this.polling;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.pollTimer);
    clearInterval(this.listenerCheck);
    clearTimeout(this.reconnectTimer);
    const listener = this.listener;
    this.listener = undefined;
    this.listening = false;
    await this.polling;
    await listener?.end().catch(() => undefined);
  }

  private async pollOnce(): Promise<void> {
    try {
      if (this.cursor === undefined) {
        // The first poll only learns where "now" is on the database's clock: what was there before boot is fresh.
        const { rows } = await this.options.pool.query('SELECT extract(epoch FROM clock_timestamp())::float8 AS now');
        this.cursor = Number(rows[0]!.now);
        return;
      }
      const { rows } = await this.options.pool.query(this.changesQuery, [this.cursor - POLL_OVERLAP_SECONDS]);
      const changes: StoredChange[] = [];
      let everything = false;
      for (const row of rows) {
        const at = Number(row.at);
        const key = `${String(row.kind)}:${String(row.id)}`;
        if (this.seen.get(key) === at) continue;
        this.seen.set(key, at);
        if (at > this.cursor) this.cursor = at;
        if (row.kind === '*') everything = true;
        else if (KINDS.has(String(row.kind))) changes.push({ kind: row.kind as StoredKind, id: String(row.id) });
      }
      for (const [key, at] of this.seen) if (at < this.cursor - 2 * POLL_OVERLAP_SECONDS) this.seen.delete(key);
      if (everything) this.options.sink();
      else if (changes.length > 0) this.options.sink(changes);
      this.pollFailureLogged = false;
    } catch (err) {
      // Logged once per outage: a database that is down is already reported by the fetches and /health.
      if (!this.pollFailureLogged) this.options.logger.warn({ err }, 'stored data: polling PostgreSQL for changes failed; retrying');
      this.pollFailureLogged = true;
    }
  }

  private schedulePoll(): void {
    clearTimeout(this.pollTimer);
    if (this.closed) return;
    const every = this.listening ? (this.options.safetyPollIntervalMs ?? SAFETY_POLL_MS) : this.options.pollIntervalMs;
    if (every <= 0) return;
    this.pollTimer = setTimeout(() => {
      void this.poll().then(() => this.schedulePoll());
    }, every);
    this.pollTimer.unref();
  }

  private async connect(): Promise<void> {
    if (this.closed || !this.options.listenClient) return;
    const client = this.options.listenClient();
    this.listener = client;
    // A connection error after connect arrives as an 'error' event; unhandled, it would end the process.
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => this.notified(message));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (err) {
      this.lost(client, err);
      return;
    }
    if (this.closed || this.listener !== client) return;
    const wasPolling = !this.listening;
    this.listening = true;
    this.reconnectDelay = RECONNECT_MIN_MS;
    this.options.logger.info({ channel: CHANGES_CHANNEL }, 'stored data: listening for PostgreSQL changes');
    // What changed while nobody listened.
    if (wasPolling) void this.poll();
    clearInterval(this.listenerCheck);
    this.listenerCheck = setInterval(() => this.checkListener(client), LISTENER_CHECK_MS);
    this.listenerCheck.unref();
    this.schedulePoll();
  }

  /** A connection that stopped answering raises no error by itself: a query it cannot answer in time ends it. */
  private checkListener(client: Client): void {
    let answered = false;
    const timer = setTimeout(() => {
      if (!answered) this.lost(client, new Error('the LISTEN connection did not answer a check'));
    }, LISTENER_CHECK_MS / 2);
    timer.unref();
    client.query('SELECT 1').then(
      () => (answered = true),
      (err: unknown) => this.lost(client, err),
    );
  }

  private lost(client: Client, err?: unknown): void {
    if (this.listener !== client) return;
    this.listener = undefined;
    clearInterval(this.listenerCheck);
    const wasListening = this.listening;
    this.listening = false;
    client.removeAllListeners('notification');
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    if (this.closed) return;
    if (wasListening) this.options.logger.warn({ err }, 'stored data: PostgreSQL LISTEN connection lost; polling until it is back');
    // Polling resumes at its own pace until notifications come back.
    this.schedulePoll();
    this.reconnectTimer = setTimeout(() => void this.connect(), this.reconnectDelay);
    this.reconnectTimer.unref();
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, RECONNECT_MAX_MS);
  }

  private notified(message: Notification): void {
    if (message.channel !== CHANGES_CHANNEL || !message.payload) return;
    let payload: unknown;
    try {
      payload = JSON.parse(message.payload);
    } catch {
      return;
    }
    if (!isJsonObject(payload) || payload.table !== this.table) return;
    if (payload.all === true) {
      this.options.sink();
      return;
    }
    const { kind, id } = payload;
    if (typeof kind === 'string' && KINDS.has(kind) && typeof id === 'string') this.options.sink([{ kind: kind as StoredKind, id }]);
  }
}

/** The LISTEN connection's settings: keep-alive probes so a dead peer is noticed, and the pool's connect timeout. */
export function listenClientConfig(connectionString: string, connectTimeoutMs: number): ClientConfig {
  return { connectionString, connectionTimeoutMillis: connectTimeoutMs, keepAlive: true, keepAliveInitialDelayMillis: 10_000, application_name: 'gavel-listen' };
}
