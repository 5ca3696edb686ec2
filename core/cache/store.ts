import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

export type CacheValueType = 'json' | 'xml';

/** One value to keep, already checked against the limits: `value` is the text served back on GET. */
export interface CacheEntry {
  type: CacheValueType;
  value: string;
  ttlSeconds: number;
}

export interface StoredValue {
  type: CacheValueType;
  value: string;
}

/**
 * Where cached bids live. `put` keeps every entry under a fresh uuid (never overwriting an existing key) and answers
 * the uuids in entry order, or throws when the backend fails; `get` answers undefined for absent or expired keys.
 */
export interface CacheStore {
  put(entries: CacheEntry[]): Promise<string[]>;
  get(uuid: string): Promise<StoredValue | undefined>;
  close(): Promise<void>;
}

export interface MemoryCacheStoreOptions {
  /**
   * Heap budget for cached values. When a put would exceed it, the oldest entries are dropped to make room: new
   * auctions matter more than old bids that are about to expire anyway. Default 64 MiB.
   */
  maxTotalBytes?: number;
  /** Clock in epoch milliseconds; tests pass their own to expire entries without sleeping. */
  now?: () => number;
  /** Source of keys; default crypto.randomUUID. */
  newId?: () => string;
}

interface MemoryEntry extends StoredValue {
  expiresAt: number;
  bytes: number;
}

const DEFAULT_MEMORY_BUDGET_BYTES = 64 * 1024 * 1024;
/** Rough heap cost of the map slot, the uuid key and the entry object, beside the value's own characters. */
const MEMORY_ENTRY_OVERHEAD_BYTES = 200;

/** An in-process store for single-instance hosts and tests. */
export class MemoryCacheStore implements CacheStore {
  private readonly entries = new Map<string, MemoryEntry>();
  private readonly maxTotalBytes: number;
  private readonly now: () => number;
  private readonly newId: () => string;
  private totalBytes = 0;

  constructor(options: MemoryCacheStoreOptions = {}) {
    this.maxTotalBytes = options.maxTotalBytes ?? DEFAULT_MEMORY_BUDGET_BYTES;
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? randomUUID;
  }

  /** Bytes the store accounts for right now (values plus per-entry overhead). */
  get sizeBytes(): number {
    return this.totalBytes;
  }

  get entryCount(): number {
    return this.entries.size;
  }

  async put(entries: CacheEntry[]): Promise<string[]> {
    const now = this.now();
    this.dropExpiredOldest(now);
    return entries.map((entry) => this.insert(entry, now));
  }

  async get(uuid: string): Promise<StoredValue | undefined> {
    const entry = this.entries.get(uuid);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(uuid, entry);
      return undefined;
    }
    return { type: entry.type, value: entry.value };
  }

  async close(): Promise<void> {
    this.entries.clear();
    this.totalBytes = 0;
  }

  private insert(entry: CacheEntry, now: number): string {
    // JS strings cost up to two bytes per UTF-16 unit; counting that keeps the budget honest without encoding.
    const bytes = entry.value.length * 2 + MEMORY_ENTRY_OVERHEAD_BYTES;
    if (bytes > this.maxTotalBytes) {
      throw new Error(`cache value of ${bytes} bytes exceeds the memory store budget of ${this.maxTotalBytes} bytes`);
    }
    this.makeRoom(bytes);
    // A put never overwrites: a key already in use is skipped.
    let uuid = this.newId();
    while (this.entries.has(uuid)) uuid = this.newId();
    this.entries.set(uuid, { type: entry.type, value: entry.value, expiresAt: now + entry.ttlSeconds * 1000, bytes });
    this.totalBytes += bytes;
    return uuid;
  }

  /** Map order is insertion order, so the head holds the oldest entries: evict from there until the value fits. */
  private makeRoom(bytes: number): void {
    for (const [uuid, entry] of this.entries) {
      if (this.totalBytes + bytes <= this.maxTotalBytes) return;
      this.remove(uuid, entry);
    }
  }

  /** Cheap incremental sweep: expired entries at the head go; it stops at the first live one. */
  private dropExpiredOldest(now: number): void {
    for (const [uuid, entry] of this.entries) {
      if (entry.expiresAt > now) return;
      this.remove(uuid, entry);
    }
  }

  private remove(uuid: string, entry: MemoryEntry): void {
    this.entries.delete(uuid);
    this.totalBytes -= entry.bytes;
  }
}

export interface RedisCacheStoreOptions {
  /** `redis://host:port/db`; ignored when `client` is given. */
  url?: string;
  /** An existing connection to share; the store then leaves closing it to its owner. */
  client?: Redis;
  /** Prefix of every key, so the cache can share a Redis with other data. Default `gavel:cache:`. */
  keyPrefix?: string;
  /** How long one Redis command may take before it fails. Default 1000 ms. */
  commandTimeoutMs?: number;
  /** Source of keys; default crypto.randomUUID. */
  newId?: () => string;
}

/** Fresh uuids clash with live keys essentially never; a few retries turn "never" into "not in this universe". */
const MAX_PUT_ATTEMPTS = 3;

/** A shared store for hosts that run several instances. Values are kept as `<type>:<text>` under `<prefix><uuid>`. */
export class RedisCacheStore implements CacheStore {
  private readonly redis: Redis;
  private readonly ownsClient: boolean;
  private readonly keyPrefix: string;
  private readonly newId: () => string;

  constructor(options: RedisCacheStoreOptions) {
    if (options.client) {
      this.redis = options.client;
      this.ownsClient = false;
    } else {
      if (!options.url) throw new Error('RedisCacheStore needs a url or a client');
      // One retry, a command timeout: an unreachable cache must fail fast and let the auction go on without it.
      // Loaded here, not at the top: a host without Redis never pays for the client's code in memory.
      const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
      this.redis = new RedisClient(options.url, { maxRetriesPerRequest: 1, commandTimeout: options.commandTimeoutMs ?? 1000 });
      this.ownsClient = true;
    }
    this.keyPrefix = options.keyPrefix ?? 'gavel:cache:';
    this.newId = options.newId ?? randomUUID;
  }

  async put(entries: CacheEntry[]): Promise<string[]> {
    const uuids = entries.map(() => this.newId());
    let pending = entries.map((_, index) => index);
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > MAX_PUT_ATTEMPTS) throw new Error('could not find a free cache key');
      const pipeline = this.redis.pipeline();
      for (const index of pending) {
        const entry = entries[index]!;
        // NX: a put never overwrites a key that already exists.
        pipeline.set(this.keyPrefix + uuids[index], `${entry.type}:${entry.value}`, 'EX', entry.ttlSeconds, 'NX');
      }
      const replies = (await pipeline.exec()) ?? [];
      const clashed: number[] = [];
      pending.forEach((index, position) => {
        const [error, reply] = replies[position] ?? [new Error('missing reply from Redis'), null];
        if (error) throw error;
        if (reply !== 'OK') {
          clashed.push(index);
          uuids[index] = this.newId();
        }
      });
      pending = clashed;
    }
    return uuids;
  }

  async get(uuid: string): Promise<StoredValue | undefined> {
    const raw = await this.redis.get(this.keyPrefix + uuid);
    return raw === null ? undefined : decodeStored(raw);
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}

function decodeStored(raw: string): StoredValue | undefined {
  const separator = raw.indexOf(':');
  const type = raw.slice(0, separator);
  if (type !== 'json' && type !== 'xml') return undefined;
  return { type, value: raw.slice(separator + 1) };
}
