import { memoryEntryBytes } from './store.js';
/**
 * Limits per client of `POST /cache` (its address): a rate of puts (a token bucket, as Prebid Cache's rate limiter),
 * and a share of the store. The store makes room by dropping its oldest values; without a share, one client's burst
 * of puts would push out everyone else's live entries. With one, a client past its share is refused (429) and the
 * others' values stay.
 */
export interface CacheClientLimitSettings {
  /** Requests per second one client may make; 0 switches the rate limit off. */
  putsPerSecond: number;
  /** Requests one client may make at once before the rate applies. */
  burst: number;
  /** Bytes one client's live values may take in the store; 0 switches the share off. */
  maxClientBytes: number;
}

/** Clients remembered at once; past it the least recently seen are forgotten (a forgotten client starts afresh). */
const MAX_CLIENTS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

interface Usage {
  bytes: number;
  /** The client's values by expiry, oldest first: [expiresAt, bytes]. */
  values: Array<[number, number]>;
}

export type ClientRefusal = { status: 429; message: string; retryAfterSeconds: number };

export class CacheClientLimits {
  private readonly buckets = new Map<string, Bucket>();
  private readonly usage = new Map<string, Usage>();

  constructor(private readonly settings: CacheClientLimitSettings, private readonly now: () => number = Date.now) {}

  /** Takes one request from the client's rate; the refusal when there is none left. */
  admit(client: string): ClientRefusal | undefined {
    const { putsPerSecond, burst } = this.settings;
    if (putsPerSecond <= 0) return undefined;
    const now = this.now();
    let bucket = this.buckets.get(client);
    if (bucket) {
      this.buckets.delete(client);
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * putsPerSecond);
      bucket.at = now;
    } else bucket = { tokens: burst, at: now };
    remember(this.buckets, client, bucket);
    if (bucket.tokens < 1) {
      return { status: 429, message: `too many cache puts from this client: at most ${putsPerSecond} per second (bursts of ${burst}); retry later`, retryAfterSeconds: 1 };
    }
    bucket.tokens -= 1;
    return undefined;
  }

  /** Counts the values against the client's share of the store; the refusal when they would take it past. */
  reserve(client: string, values: ReadonlyArray<{ value: string; ttlSeconds: number }>): ClientRefusal | undefined {
    const max = this.settings.maxClientBytes;
    if (max <= 0) return undefined;
    const now = this.now();
    const usage = this.usage.get(client) ?? { bytes: 0, values: [] };
    this.usage.delete(client);
    let expired = 0;
    while (expired < usage.values.length && usage.values[expired]![0] <= now) usage.bytes -= usage.values[expired++]![1];
    if (expired > 0) usage.values.splice(0, expired);
    let adding = 0;
    for (const { value } of values) adding += memoryEntryBytes(value);
    if (usage.bytes + adding > max) {
      if (usage.values.length > 0) remember(this.usage, client, usage);
      const retry = usage.values.length > 0 ? Math.max(1, Math.ceil((usage.values[0]![0] - now) / 1000)) : 1;
      return { status: 429, message: `this client's cached values already take its share of the cache (${max} bytes); retry when some expire`, retryAfterSeconds: retry };
    }
    for (const { value, ttlSeconds } of values) insertByExpiry(usage.values, [now + ttlSeconds * 1000, memoryEntryBytes(value)]);
    usage.bytes += adding;
    remember(this.usage, client, usage);
    return undefined;
  }
}

/** Map order is recency: the client goes to the end, and the least recently seen go past MAX_CLIENTS. */
function remember<T>(map: Map<string, T>, client: string, value: T): void {
  map.set(client, value);
  if (map.size > MAX_CLIENTS) map.delete(map.keys().next().value!);
}

function insertByExpiry(values: Array<[number, number]>, value: [number, number]): void {
  let at = values.length;
  while (at > 0 && values[at - 1]![0] > value[0]) at--;
  values.splice(at, 0, value);
}
