import type { Got } from 'got';
import { loadGot } from '../outbound/got.js';
import type { PluginLogger } from '../api/index.js';
import { checkPut, DEFAULT_CACHE_LIMITS, type CacheLimits, type CachePut } from './limits.js';
import type { CircuitBreaker } from './breaker.js';
import { MemoryCacheStore, type CacheEntry, type CacheStore } from './store.js';

/**
 * Why values went uncached for the cache's sake (not their own, such as being too large): the cache was `skipped`
 * (its breaker is open after failures) or it `failed` (an error, or no answer in time).
 */
export type CacheProblem = 'skipped' | 'failed';

/** The warning an auction's answer carries when bids were left uncached because of the cache (`ext.warnings.general`). */
export const CACHE_UNAVAILABLE_WARNING = 10900;

/**
 * How the auction caches bids. `put` answers one uuid per value, in order, or undefined for a value that was not
 * cached (too large, malformed, cache down, deadline passed), and tells `report` when the cache itself was the
 * reason. It never throws: a cache failure must not fail the auction, its keys are simply absent.
 */
export interface CacheClient {
  put(values: CachePut[], deadline: number, report?: (problem: CacheProblem) => void): Promise<Array<string | undefined>>;
}

type Clock = () => number;

/**
 * Caches into a store this process reaches directly (memory, or Redis). With a breaker (Redis), a store that keeps
 * failing is skipped outright until it answers again, so a cache that is down costs an auction nothing.
 */
export class EmbeddedCacheClient implements CacheClient {
  private readonly logger: Pick<PluginLogger, 'warn'> | undefined;
  private readonly now: Clock;
  private readonly breaker: CircuitBreaker | undefined;

  constructor(
    private readonly store: CacheStore,
    private readonly limits: CacheLimits = DEFAULT_CACHE_LIMITS,
    options: { logger?: Pick<PluginLogger, 'warn'>; now?: Clock; breaker?: CircuitBreaker } = {},
  ) {
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.breaker = options.breaker;
  }

  put(values: CachePut[], deadline: number, report?: (problem: CacheProblem) => void): Promise<Array<string | undefined>> {
    return putWithinLimits(values, this.limits, (entries) => {
      const msLeft = deadline - this.now();
      // Out of time is the auction's state, not the cache's: nothing to report, nothing for the breaker.
      if (msLeft <= 0) return undefined;
      if (this.breaker && !this.breaker.allow()) {
        report?.('skipped');
        return undefined;
      }
      const failed = (error: unknown): undefined => {
        this.breaker?.failure();
        report?.('failed');
        this.logger?.warn({ err: error }, 'bid cache put failed');
        return undefined;
      };
      // The memory store answers at once, without a promise: a timer, a race and a chain of awaits per auction
      // would cost more than the put.
      if (this.store instanceof MemoryCacheStore) {
        try {
          const uuids = this.store.putNow(entries);
          this.breaker?.success();
          return uuids;
        } catch (error) {
          return failed(error);
        }
      }
      let pending: Promise<string[]>;
      try {
        pending = this.store.put(entries);
      } catch (error) {
        return failed(error);
      }
      return withTimeout(pending, msLeft).then((uuids) => {
        this.breaker?.success();
        return uuids;
      }, failed);
    });
  }
}

export interface RemoteCacheClientOptions {
  /** The full endpoint address, e.g. `https://cache.example.com/cache` (config `cache.url`). */
  url: string;
  /** Checked before sending so oversized values cost no network; also sets how many puts go in one call. */
  limits?: CacheLimits;
  logger?: Pick<PluginLogger, 'warn'>;
  now?: Clock;
  /** The got instance to send with (a host may share one with tuned agents). */
  http?: Got;
}

/** Caches through a Prebid Cache compatible server over HTTP. */
export class RemoteCacheClient implements CacheClient {
  private readonly url: string;
  private readonly limits: CacheLimits;
  private readonly logger: Pick<PluginLogger, 'warn'> | undefined;
  private readonly now: Clock;
  private http: Got | undefined;

  constructor(options: RemoteCacheClientOptions) {
    this.url = options.url;
    this.limits = options.limits ?? DEFAULT_CACHE_LIMITS;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.http = options.http;
  }

  put(values: CachePut[], deadline: number, report?: (problem: CacheProblem) => void): Promise<Array<string | undefined>> {
    return putWithinLimits(values, this.limits, async (entries) => {
      // The server takes at most maxPutsPerRequest puts per call: send the batches side by side.
      const batches = chunk(entries, this.limits.maxPutsPerRequest);
      const answers = await Promise.all(batches.map((batch) => this.send(batch, deadline)));
      if (answers.includes(undefined) && deadline > this.now()) report?.('failed');
      return answers.flatMap((uuids, index) => uuids ?? new Array<undefined>(batches[index]!.length).fill(undefined));
    });
  }

  /** One `POST /cache` call; undefined on any failure. */
  private async send(entries: CacheEntry[], deadline: number): Promise<string[] | undefined> {
    const msLeft = deadline - this.now();
    if (msLeft <= 0) return undefined;
    try {
      this.http ??= await loadGot();
      const response = await this.http.post(this.url, {
        body: putsBody(entries),
        headers: { 'content-type': 'application/json' },
        timeout: { request: msLeft },
        retry: { limit: 0 },
        responseType: 'text',
      });
      const uuids = readUuids(response.body, entries.length);
      if (!uuids) this.logger?.warn({ url: this.url }, 'bid cache answered with an unexpected body');
      return uuids;
    } catch (error) {
      this.logger?.warn({ err: error, url: this.url }, 'bid cache call failed');
      return undefined;
    }
  }
}

/**
 * Checks every value against the limits, hands the valid ones to `store` and places the uuids back at the positions
 * of their values. Values that fail the checks, or a store that answers undefined, leave undefined behind. A store
 * that answers at once (the memory store) is answered with one settled promise.
 */
function putWithinLimits(
  values: CachePut[],
  limits: CacheLimits,
  store: (entries: CacheEntry[]) => Array<string | undefined> | undefined | Promise<Array<string | undefined> | undefined>,
): Promise<Array<string | undefined>> {
  const positions: number[] = [];
  const entries: CacheEntry[] = [];
  for (let position = 0; position < values.length; position++) {
    const checked = checkPut(values[position], limits);
    if (checked.ok) {
      positions.push(position);
      entries.push(checked.entry);
    }
  }
  const stored = entries.length === 0 ? undefined : store(entries);
  if (stored instanceof Promise) return stored.then((uuids) => placeUuids(values.length, positions, uuids));
  return Promise.resolve(placeUuids(values.length, positions, stored));
}

function placeUuids(count: number, positions: number[], stored: Array<string | undefined> | undefined): Array<string | undefined> {
  // Every value valid and stored: the store's answer is the answer.
  if (stored && stored.length === count) return stored;
  const uuids = new Array<string | undefined>(count).fill(undefined);
  for (let index = 0; index < positions.length; index++) uuids[positions[index]!] = stored?.[index];
  return uuids;
}

/** The request body, written by hand because JSON values are already serialised text after the checks. */
function putsBody(entries: CacheEntry[]): string {
  const puts = entries.map((entry) => {
    const value = entry.type === 'json' ? entry.value : JSON.stringify(entry.value);
    return `{"type":"${entry.type}","value":${value},"ttlseconds":${entry.ttlSeconds}}`;
  });
  return `{"puts":[${puts.join(',')}]}`;
}

/** The uuids of a `{"responses":[{"uuid":"..."}]}` answer, or undefined when it does not match what was sent. */
function readUuids(body: string, expected: number): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const responses = (parsed as { responses?: unknown } | null)?.responses;
  if (!Array.isArray(responses) || responses.length !== expected) return undefined;
  const uuids = responses.map((response) => (response as { uuid?: unknown } | null)?.uuid);
  return uuids.every((uuid): uuid is string => typeof uuid === 'string' && uuid !== '') ? uuids : undefined;
}

function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    // Whole ms: Node keeps a timer list per distinct duration, and a fractional one would be a new list per call.
    const wholeMs = Math.max(1, Math.floor(ms));
    timer = setTimeout(() => reject(new Error(`timed out after ${wholeMs} ms`)), wholeMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
