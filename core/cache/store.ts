import { createRequire } from 'node:module';
import type { Cluster, Redis } from 'ioredis';
import type { PluginLogger } from '../api/index.js';
import { newCacheId } from './ids.js';

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
  /** Answers when the backend does; absent for a store in this process, which cannot be down. */
  ping?(): Promise<void>;
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
  /** Source of keys; default newCacheId (random version 4 UUIDs). */
  newId?: () => string;
}

interface MemoryEntry extends StoredValue {
  uuid: string;
  expiresAt: number;
  bytes: number;
  /** False once removed: the queue then skips it without a lookup in the map. */
  stored: boolean;
}

const DEFAULT_MEMORY_BUDGET_BYTES = 64 * 1024 * 1024;
/**
 * Heap cost of an entry beside its value's characters: the entry object and its expiry number (about 90 bytes), the
 * uuid string (56), the map's slot (24-64 as the table fills) and the queue's (8-16). Measured with the store full:
 * about 340 bytes of live heap per value against 323 counted with 200 here, so 256 keeps the cap a true bound.
 */
const MEMORY_ENTRY_OVERHEAD_BYTES = 256;
/** The eviction queue drops its consumed head once it is this long and more than half of the queue. */
const QUEUE_COMPACT_AT = 1024;

/**
 * An in-process store for single-instance hosts and tests. Entries are kept in a Map by uuid and, in insertion
 * order, in a queue that eviction and the expiry sweep consume from the head. The queue is its own array because a
 * Map used as a queue is slow: V8 leaves a hole for each deleted entry until the table is rebuilt, and iterating
 * from the start walks every hole, so with the store full each put walked tens of thousands of them.
 */
export class MemoryCacheStore implements CacheStore {
  private readonly entries = new Map<string, MemoryEntry>();
  /** Every live entry in insertion order from `queueHead` on; also entries already removed by `get` (skipped). */
  private queue: MemoryEntry[] = [];
  private queueHead = 0;
  private readonly maxTotalBytes: number;
  private readonly now: () => number;
  private readonly newId: () => string;
  private totalBytes = 0;

  constructor(options: MemoryCacheStoreOptions = {}) {
    this.maxTotalBytes = options.maxTotalBytes ?? DEFAULT_MEMORY_BUDGET_BYTES;
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? newCacheId;
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
    const uuids = new Array<string>(entries.length);
    for (let index = 0; index < entries.length; index++) uuids[index] = this.insert(entries[index]!, now);
    return uuids;
  }

  async get(uuid: string): Promise<StoredValue | undefined> {
    const entry = this.entries.get(uuid);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(entry);
      return undefined;
    }
    return { type: entry.type, value: entry.value };
  }

  async close(): Promise<void> {
    for (const entry of this.entries.values()) entry.stored = false;
    this.entries.clear();
    this.queue = [];
    this.queueHead = 0;
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
    const stored: MemoryEntry = { type: entry.type, value: entry.value, uuid, expiresAt: now + entry.ttlSeconds * 1000, bytes, stored: true };
    this.entries.set(uuid, stored);
    this.queue.push(stored);
    this.totalBytes += bytes;
    return uuid;
  }

  /** The head of the queue holds the oldest entries: evict from there until the value fits. */
  private makeRoom(bytes: number): void {
    while (this.totalBytes + bytes > this.maxTotalBytes) {
      const oldest = this.oldest();
      if (!oldest) return;
      this.remove(oldest);
    }
  }

  /** Cheap incremental sweep: expired entries at the head go; it stops at the first live one. */
  private dropExpiredOldest(now: number): void {
    for (let oldest = this.oldest(); oldest && oldest.expiresAt <= now; oldest = this.oldest()) this.remove(oldest);
  }

  /** The oldest entry still stored, after dropping the queue's slots of entries `get` already removed. */
  private oldest(): MemoryEntry | undefined {
    const queue = this.queue;
    while (this.queueHead < queue.length) {
      const entry = queue[this.queueHead]!;
      if (entry.stored) return entry;
      this.consumeHead();
    }
    return undefined;
  }

  private remove(entry: MemoryEntry): void {
    entry.stored = false;
    this.entries.delete(entry.uuid);
    this.totalBytes -= entry.bytes;
    if (this.queue[this.queueHead] === entry) this.consumeHead();
    // Removed out of order (expired on a get): its queue slot lives on until the head passes it, its value need not.
    else entry.value = '';
  }

  private consumeHead(): void {
    this.queue[this.queueHead++] = undefined as unknown as MemoryEntry;
    if (this.queueHead >= QUEUE_COMPACT_AT && this.queueHead * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
  }
}

export interface RedisCacheStoreOptions {
  /** `redis://host:port/db`: one server. One of `url`, `cluster`, `sentinel` or `client` is needed. */
  url?: string;
  /** Redis Cluster: some of its nodes (`redis://host:port`); the client learns the rest. */
  cluster?: string[];
  /** Redis Sentinel: the master's name and the sentinels (`host:port`). */
  sentinel?: { name: string; sentinels: string[]; password?: string };
  /** An existing connection to share; the store then leaves closing it to its owner. */
  client?: Redis | Cluster;
  /** Prefix of every key, so the cache can share a Redis with other data. Default `gavel:cache:`. */
  keyPrefix?: string;
  /** How long one Redis command may take before it fails. Default 1000 ms. */
  commandTimeoutMs?: number;
  /** Where the client's connection errors go (one line per outage, one when it is back), instead of stderr. */
  logger?: Pick<PluginLogger, 'warn' | 'info'>;
  /** Source of keys; default newCacheId (random version 4 UUIDs). */
  newId?: () => string;
}

/** Fresh uuids clash with live keys essentially never; a few retries turn "never" into "not in this universe". */
const MAX_PUT_ATTEMPTS = 3;

/**
 * A shared store for hosts that run several instances. Values are kept as `<type>:<text>` under `<prefix><uuid>`, on
 * one Redis server, a Redis Cluster (keys spread over its nodes by slot) or the master a Sentinel names.
 */
export class RedisCacheStore implements CacheStore {
  private readonly redis: Redis | Cluster;
  private readonly ownsClient: boolean;
  private readonly keyPrefix: string;
  private readonly newId: () => string;
  private readonly clustered: boolean;

  constructor(options: RedisCacheStoreOptions) {
    this.keyPrefix = options.keyPrefix ?? 'gavel:cache:';
    this.newId = options.newId ?? newCacheId;
    if (options.client) {
      this.redis = options.client;
      this.ownsClient = false;
    } else {
      this.redis = connectRedis(options);
      this.ownsClient = true;
    }
    this.clustered = 'nodes' in this.redis && typeof this.redis.nodes === 'function';
    if (options.logger) reportConnection(this.redis, options.logger);
  }

  async put(entries: CacheEntry[]): Promise<string[]> {
    const uuids = entries.map(() => this.newId());
    let pending = entries.map((_, index) => index);
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > MAX_PUT_ATTEMPTS) throw new Error('could not find a free cache key');
      const replies = await this.setAll(pending.map((index) => [this.keyPrefix + uuids[index], entries[index]!]));
      const clashed: number[] = [];
      pending.forEach((index, position) => {
        if (replies[position] !== 'OK') {
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

  /** Answers when Redis does: the health check. */
  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  /**
   * `SET key value EX ttl NX` for each entry (NX: a put never overwrites), answering each reply. One pipeline on a
   * single server; on a cluster the keys live in different slots, which one pipeline cannot span, so the commands go
   * side by side (the client sends each to its node).
   */
  private async setAll(sets: Array<[string, CacheEntry]>): Promise<Array<unknown>> {
    if (this.clustered) {
      return Promise.all(sets.map(([key, entry]) => this.redis.set(key, `${entry.type}:${entry.value}`, 'EX', entry.ttlSeconds, 'NX')));
    }
    const pipeline = this.redis.pipeline();
    for (const [key, entry] of sets) pipeline.set(key, `${entry.type}:${entry.value}`, 'EX', entry.ttlSeconds, 'NX');
    const replies = (await pipeline.exec()) ?? [];
    return sets.map((_, position) => {
      const [error, reply] = replies[position] ?? [new Error('missing reply from Redis'), null];
      if (error) throw error;
      return reply;
    });
  }
}

/**
 * One retry, a command timeout: an unreachable cache must fail fast and let the auction go on without it. ioredis is
 * loaded here, not at the top: a host without Redis never pays for the client's code in memory.
 */
function connectRedis(options: RedisCacheStoreOptions): Redis | Cluster {
  const ioredis = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const common = { maxRetriesPerRequest: 1, commandTimeout: options.commandTimeoutMs ?? 1000 };
  if (options.cluster) {
    return new ioredis.Cluster(options.cluster.map(hostAndPort), { redisOptions: common, scaleReads: 'master' });
  }
  if (options.sentinel) {
    const { name, sentinels, password } = options.sentinel;
    return new ioredis.Redis({ ...common, name, sentinels: sentinels.map(hostAndPort), password });
  }
  if (!options.url) throw new Error('RedisCacheStore needs a url, cluster nodes, a sentinel or a client');
  return new ioredis.Redis(options.url, common);
}

/** `redis://host:port`, `host:port` or `host` as ioredis takes a node. */
function hostAndPort(address: string): { host: string; port: number } {
  const url = new URL(address.includes('://') ? address : `redis://${address}`);
  return { host: url.hostname, port: url.port ? Number(url.port) : 6379 };
}

/**
 * ioredis emits 'error' on each failed reconnection; with no listener it prints `[ioredis] Unhandled error event` to
 * stderr, many times a second. Through the logger instead: one warning when the connection fails, one line when it is
 * back.
 */
function reportConnection(redis: Redis | Cluster, logger: Pick<PluginLogger, 'warn' | 'info'>): void {
  let failing = false;
  const failed = (err: Error) => {
    if (failing) return;
    failing = true;
    logger.warn({ err }, 'bid cache: Redis connection failed; retrying');
  };
  redis.on('error', failed);
  redis.on('node error', failed);
  redis.on('ready', () => {
    if (failing) logger.info('bid cache: Redis connection is back');
    failing = false;
  });
}

function decodeStored(raw: string): StoredValue | undefined {
  const separator = raw.indexOf(':');
  const type = raw.slice(0, separator);
  if (type !== 'json' && type !== 'xml') return undefined;
  return { type, value: raw.slice(separator + 1) };
}
