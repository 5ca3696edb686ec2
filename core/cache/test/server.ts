import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import Koa from 'koa';
import { Router } from '@koa/router';
import { DEFAULT_CACHE_LIMITS, type CacheLimits } from '../limits.js';
import { registerCacheRoutes } from '../routes.js';
import type { CacheStore } from '../store.js';

export interface RunningCache {
  /** Base address, e.g. `http://127.0.0.1:40123`; the endpoint is `${base}/cache`. */
  base: string;
  close(): Promise<void>;
}

/** A real koa app serving the cache routes on an ephemeral port. */
export async function startCacheServer(store: CacheStore, limits: CacheLimits = DEFAULT_CACHE_LIMITS): Promise<RunningCache> {
  const app = new Koa();
  const router = new Router();
  registerCacheRoutes(router, store, limits);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return listen(createServer(app.callback()));
}

export async function listen(server: Server): Promise<RunningCache> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A clock tests move by hand, so expiry needs no sleeping. */
export function manualClock(start = 1_700_000_000_000): { now: () => number; advance(ms: number): void } {
  let current = start;
  return { now: () => current, advance: (ms) => void (current += ms) };
}
