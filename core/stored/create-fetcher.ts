import { createRequire } from 'node:module';
import type { PluginLogger } from '../api/index.js';
import { BackendStatus, startProbe } from '../metrics/readiness.js';
import { CachingFetcher } from './caching-fetcher.js';
import type { StoredDataFetcher } from './fetcher.js';
import { FilesystemFetcher } from './filesystem-fetcher.js';
import { FilesystemWatch } from './filesystem-watch.js';
import { GuardedFetcher } from './guarded-fetcher.js';
import { HttpChangeFeed } from './http-changes.js';
import { HttpFetcher } from './http-fetcher.js';
import type { ChangeFeed, InvalidationSink, StoredChange } from './invalidation.js';
import { listenClientConfig, PostgresChangeFeed } from './postgres-changes.js';
import { PostgresFetcher, type PostgresQueries } from './postgres-fetcher.js';

/** The PostgreSQL pool's bounds: every query and connection attempt ends within its timeout. */
export interface PostgresPoolConfig {
  /** Connections per process (each worker has its own pool). */
  poolSize: number;
  /** Longest wait for a connection: to connect, or for a free one from a full pool. */
  connectTimeoutMs: number;
  /** Longest a query may run: the server's `statement_timeout`, and the client stops waiting then too. */
  statementTimeoutMs: number;
  /** An idle connection is closed after this. */
  idleTimeoutMs: number;
}

export type StoredBackendConfig =
  | { backend: 'filesystem'; dir: string; watch?: boolean }
  | {
      backend: 'postgres';
      connectionString: string;
      table?: string;
      queries?: Partial<PostgresQueries>;
      pool?: Partial<PostgresPoolConfig>;
      /** How the cache learns of changes: LISTEN/NOTIFY and polling (see PostgresChangeFeed). */
      changes?: { listen?: boolean; pollIntervalMs?: number; changesQuery?: string };
      /** How often the database is probed for readiness; 0 = only requests tell. */
      healthCheckIntervalMs?: number;
    }
  | { backend: 'http'; url: string; accountsUrl?: string; timeoutMs?: number; events?: { url: string; intervalMs: number } };

export type StoredDataConfig = StoredBackendConfig & {
  /** In-memory cache in front of the backend; absent means no cache. */
  cache?: { ttlMs: number; maxEntries: number; missTtlMs?: number };
};

export interface StoredDataService {
  fetcher: StoredDataFetcher;
  /** Drops changed documents (all of them, given no change) from the cache and from the calls in flight. */
  invalidate?(changes?: readonly StoredChange[]): void;
  /** Whether the backend answers, for readiness; absent for a backend that cannot go down (a folder). */
  status?: BackendStatus;
  /** Releases what the backend holds (the PostgreSQL pool, the feed's connection); call on shutdown. */
  close(): Promise<void>;
}

export const DEFAULT_POOL: PostgresPoolConfig = { poolSize: 5, connectTimeoutMs: 1000, statementTimeoutMs: 1000, idleTimeoutMs: 30_000 };

/**
 * Builds the configured backend and what stands in front of it: the guard (single flight, the request's deadline,
 * the backend's status), the cache when configured, and the backend's change feed that invalidates the cache.
 */
export function createStoredDataFetcher(config: StoredDataConfig, logger?: PluginLogger): StoredDataService {
  const log = logger ?? silent;
  const status = config.backend === 'filesystem' ? undefined : new BackendStatus('storedData');
  const backend = createBackend(config, log, status);
  const guarded = new GuardedFetcher(backend.fetcher, { status });
  const cached = config.cache ? new CachingFetcher(guarded, config.cache.ttlMs, config.cache.maxEntries, { missTtlMs: config.cache.missTtlMs }) : undefined;
  const invalidate: InvalidationSink = (changes) => {
    cached?.invalidate(changes);
    guarded.invalidate(changes);
  };
  const feed = cached ? backend.changes?.(invalidate) : undefined;
  return {
    fetcher: cached ?? guarded,
    invalidate,
    status,
    close: async () => {
      await feed?.close();
      await backend.close();
    },
  };
}

interface Backend {
  fetcher: StoredDataFetcher;
  /** Starts the backend's change feed, telling `sink` of changes. */
  changes?(sink: InvalidationSink): ChangeFeed;
  close(): Promise<void>;
}

function createBackend(config: StoredBackendConfig, logger: PluginLogger, status: BackendStatus | undefined): Backend {
  switch (config.backend) {
    case 'filesystem':
      return {
        fetcher: new FilesystemFetcher(config.dir),
        changes: config.watch === false ? undefined : (sink) => startFeed(new FilesystemWatch(config.dir, sink, logger)),
        close: async () => {},
      };
    case 'http': {
      const events = config.events;
      return {
        fetcher: new HttpFetcher(config),
        changes: events
          ? (sink) => startFeed(new HttpChangeFeed({ url: events.url, intervalMs: events.intervalMs, timeoutMs: config.timeoutMs ?? 1000, sink, logger }))
          : undefined,
        close: async () => {},
      };
    }
    case 'postgres':
      return postgresBackend(config, logger, status!);
  }
}

function startFeed<F extends ChangeFeed & { start(): unknown }>(feed: F): F {
  void feed.start();
  return feed;
}

function postgresBackend(config: Extract<StoredBackendConfig, { backend: 'postgres' }>, logger: PluginLogger, status: BackendStatus): Backend {
  // Loaded only when configured, so hosts without PostgreSQL don't carry the driver in memory.
  const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
  const bounds = { ...DEFAULT_POOL, ...definedOnly(config.pool ?? {}) };
  const pool = new pg.Pool({
    connectionString: config.connectionString,
    max: bounds.poolSize,
    connectionTimeoutMillis: bounds.connectTimeoutMs,
    idleTimeoutMillis: bounds.idleTimeoutMs,
    statement_timeout: bounds.statementTimeoutMs,
    query_timeout: bounds.statementTimeoutMs,
    application_name: 'gavel',
  });
  // An idle client that loses its connection emits 'error' on the pool; unhandled, that would end the process.
  pool.on('error', (err) => logger.warn({ err }, 'stored data: idle PostgreSQL connection failed'));

  const probe = startProbe(config.healthCheckIntervalMs ?? 2000, async () => {
    await pool.query('SELECT 1');
  }, status);
  status.onChange((up, reason) => {
    if (up) logger.info('stored data: PostgreSQL answers again');
    else logger.error({ reason }, 'stored data: PostgreSQL is unavailable');
  });

  const changes = config.changes ?? {};
  return {
    fetcher: new PostgresFetcher(pool, { table: config.table, queries: config.queries }),
    changes: (sink) =>
      startFeed(
        new PostgresChangeFeed({
          pool,
          listenClient: changes.listen === false ? undefined : () => new pg.Client(listenClientConfig(config.connectionString, bounds.connectTimeoutMs)),
          table: config.table,
          changesQuery: changes.changesQuery,
          pollIntervalMs: changes.pollIntervalMs ?? 1000,
          sink,
          logger,
        }),
      ),
    close: async () => {
      probe.stop();
      await pool.end();
    },
  };
}

/** The members that are set: spread over defaults, an `undefined` member would replace the default. */
function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

const silent: PluginLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
