import { createRequire } from 'node:module';
import type { PluginLogger } from '../api/index.js';
import { CachingFetcher } from './caching-fetcher.js';
import type { StoredDataFetcher } from './fetcher.js';
import { FilesystemFetcher } from './filesystem-fetcher.js';
import { HttpFetcher } from './http-fetcher.js';
import { PostgresFetcher, type PostgresQueries } from './postgres-fetcher.js';

export type StoredBackendConfig =
  | { backend: 'filesystem'; dir: string }
  | { backend: 'postgres'; connectionString: string; table?: string; queries?: Partial<PostgresQueries>; poolSize?: number }
  | { backend: 'http'; url: string; accountsUrl?: string; timeoutMs?: number };

export type StoredDataConfig = StoredBackendConfig & {
  /** In-memory cache in front of the backend; absent means no cache. */
  cache?: { ttlMs: number; maxEntries: number; missTtlMs?: number };
};

export interface StoredDataService {
  fetcher: StoredDataFetcher;
  /** Releases what the backend holds (the PostgreSQL pool); call on shutdown. */
  close(): Promise<void>;
}

/** Builds the configured backend, with the cache in front of it when configured. */
export function createStoredDataFetcher(config: StoredDataConfig, logger?: PluginLogger): StoredDataService {
  const { fetcher: backend, close } = createBackend(config, logger);
  const fetcher = config.cache
    ? new CachingFetcher(backend, config.cache.ttlMs, config.cache.maxEntries, { missTtlMs: config.cache.missTtlMs })
    : backend;
  return { fetcher, close };
}

function createBackend(config: StoredBackendConfig, logger?: PluginLogger): StoredDataService {
  switch (config.backend) {
    case 'filesystem':
      return { fetcher: new FilesystemFetcher(config.dir), close: async () => {} };
    case 'http':
      return { fetcher: new HttpFetcher(config), close: async () => {} };
    case 'postgres': {
      // Loaded only when configured, so hosts without PostgreSQL don't carry the driver in memory.
      const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
      const pool = new pg.Pool({ connectionString: config.connectionString, max: config.poolSize });
      // An idle client that loses its connection emits 'error' on the pool; unhandled, that would end the process.
      pool.on('error', (err) => logger?.warn({ err }, 'stored data: idle PostgreSQL connection failed'));
      return {
        fetcher: new PostgresFetcher(pool, { table: config.table, queries: config.queries }),
        close: () => pool.end(),
      };
    }
  }
}
