import { createRequire } from 'node:module';
import type { Cluster, Redis } from 'ioredis';
import type { PluginLogger } from '../api/index.js';
import { cacheIdText, drawCacheIdBytes, newCacheId, parseCacheId } from './ids.js';

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
   * Bytes for cached values, their keys and expiry: the store is one buffer of this size (taken on the first put), so
   * it is also the store's whole footprint. When a value does not fit, the oldest entries make room: new auctions
   * matter more than old bids about to expire anyway. Default 64 MiB, at most 4 GiB.
   */
  maxTotalBytes?: number;
  /** Clock in epoch milliseconds; tests pass their own to expire entries without sleeping. */
  now?: () => number;
}

const DEFAULT_MEMORY_BUDGET_BYTES = 64 * 1024 * 1024;
/** Entries start on this boundary; an id's place in the ring is its offset divided by this. */
const ALIGN = 8;
/** An entry's header: its id (16 bytes), expiry in epoch ms (float64), value length (uint32), type, state, 2 spare. */
const HEADER_BYTES = 32;
const EXPIRES_AT = 16;
const LENGTH_AT = 24;
const TYPE_AT = 28;
const STATE_AT = 29;
const LIVE = 1;
const DEAD = 0;
const TYPE_CODES: Record<CacheValueType, number> = { json: 0, xml: 1 };
const TYPES: readonly CacheValueType[] = ['json', 'xml'];

/**
 * An in-process store for single-instance hosts and tests: a ring buffer of `maxTotalBytes`, written front to back
 * and wrapping around, each entry a header and the value's UTF-8 bytes (the form `GET /cache` serves). Values live
 * outside the V8 heap, so a full store costs the garbage collector nothing and RSS grows by exactly the budget; the
 * oldest entries are overwritten first, and expired ones are dropped from the oldest end as puts come in.
 *
 * A key needs no index: the first 4 bytes of its (otherwise random, version 4) UUID are its entry's place in the
 * ring, and a bit per place says whether a live entry starts there. A get checks that bit and then all 16 bytes of
 * the key against the header, so a key is found only while its own entry is there.
 */
export class MemoryCacheStore implements CacheStore {
  private readonly capacity: number;
  private readonly now: () => number;
  /** Taken on the first put: a host that caches elsewhere never pays for it. */
  private ring: Buffer | undefined;
  /** A bit per ALIGN bytes of the ring: set where a live entry's header starts. */
  private readonly starts: Uint8Array;
  private readonly idBytes = Buffer.alloc(16);
  /** Where the next entry goes. */
  private head = 0;
  /** The oldest entry still in the ring (live or dead). */
  private tail = 0;
  /** While the ring has wrapped (newest entries from 0 to head, oldest from tail to here), where the oldest run ends; -1 otherwise. */
  private wrapAt = -1;
  /** Entries between tail and head, live or dead: tells an empty ring from a full one when head meets tail. */
  private held = 0;
  private liveCount = 0;
  private liveBytes = 0;

  constructor(options: MemoryCacheStoreOptions = {}) {
    const budget = options.maxTotalBytes ?? DEFAULT_MEMORY_BUDGET_BYTES;
    this.capacity = Math.floor(budget / ALIGN) * ALIGN;
    this.now = options.now ?? Date.now;
    this.starts = new Uint8Array(Math.ceil(this.capacity / ALIGN / 8));
  }

  /** Bytes the live entries take in the ring (headers and values, each rounded up to 8 bytes). */
  get sizeBytes(): number {
    return this.liveBytes;
  }

  get entryCount(): number {
    return this.liveCount;
  }

  async put(entries: CacheEntry[]): Promise<string[]> {
    return this.putNow(entries);
  }

  /** `put` without the promise: the embedded cache client's path, where a put is part of an auction's own work. */
  putNow(entries: CacheEntry[]): string[] {
    const now = this.now();
    this.dropExpiredOldest(now);
    const uuids = new Array<string>(entries.length);
    for (let index = 0; index < entries.length; index++) uuids[index] = this.insert(entries[index]!, now);
    return uuids;
  }

  async get(uuid: string): Promise<StoredValue | undefined> {
    const at = this.locate(uuid);
    if (at === undefined) return undefined;
    const ring = this.ring!;
    if (ring.readDoubleLE(at + EXPIRES_AT) <= this.now()) {
      this.kill(at);
      return undefined;
    }
    const start = at + HEADER_BYTES;
    return { type: TYPES[ring[at + TYPE_AT]!]!, value: ring.toString('utf8', start, start + ring.readUInt32LE(at + LENGTH_AT)) };
  }

  async close(): Promise<void> {
    this.starts.fill(0);
    this.head = 0;
    this.tail = 0;
    this.wrapAt = -1;
    this.held = 0;
    this.liveCount = 0;
    this.liveBytes = 0;
  }

  private insert(entry: CacheEntry, now: number): string {
    const valueBytes = Buffer.byteLength(entry.value, 'utf8');
    const size = entrySize(valueBytes);
    if (size > this.capacity) {
      throw new Error(`cache value of ${size} bytes exceeds the memory store budget of ${this.capacity} bytes`);
    }
    const ring = (this.ring ??= Buffer.allocUnsafeSlow(this.capacity));
    const at = this.reserve(size);
    drawCacheIdBytes(ring, at);
    ring.writeUInt32BE(at / ALIGN, at);
    ring.writeDoubleLE(now + entry.ttlSeconds * 1000, at + EXPIRES_AT);
    ring.writeUInt32LE(valueBytes, at + LENGTH_AT);
    ring[at + TYPE_AT] = TYPE_CODES[entry.type];
    ring[at + STATE_AT] = LIVE;
    ring.write(entry.value, at + HEADER_BYTES, valueBytes, 'utf8');
    this.setStart(at, true);
    this.head = at + size;
    this.held++;
    this.liveCount++;
    this.liveBytes += size;
    return cacheIdText(ring, at);
  }

  /** Where an entry of `size` bytes goes: at the head, or from the ring's start once its end is reached, evicting the oldest entries in the way. */
  private reserve(size: number): number {
    for (;;) {
      if (this.held === 0) {
        this.head = 0;
        this.tail = 0;
        this.wrapAt = -1;
      }
      if (this.wrapAt < 0) {
        if (this.head + size <= this.capacity) return this.head;
        this.wrapAt = this.head;
        this.head = 0;
      } else if (this.head + size <= this.tail) {
        return this.head;
      } else {
        this.evictOldest();
      }
    }
  }

  /** Cheap incremental sweep: expired (and dead) entries at the oldest end go; it stops at the first live one. */
  private dropExpiredOldest(now: number): void {
    const ring = this.ring;
    while (this.held > 0 && (ring![this.tail + STATE_AT] === DEAD || ring!.readDoubleLE(this.tail + EXPIRES_AT) <= now)) this.evictOldest();
  }

  private evictOldest(): void {
    const ring = this.ring!;
    const at = this.tail;
    const size = entrySize(ring.readUInt32LE(at + LENGTH_AT));
    if (ring[at + STATE_AT] === LIVE) this.release(at, size);
    this.held--;
    this.tail = at + size;
    if (this.wrapAt >= 0 && this.tail >= this.wrapAt) {
      this.tail = 0;
      this.wrapAt = -1;
    }
  }

  /** An entry found expired by a get, out of order: no longer served; its bytes go when the oldest end reaches it. */
  private kill(at: number): void {
    this.release(at, entrySize(this.ring!.readUInt32LE(at + LENGTH_AT)));
  }

  private release(at: number, size: number): void {
    this.ring![at + STATE_AT] = DEAD;
    this.setStart(at, false);
    this.liveCount--;
    this.liveBytes -= size;
  }

  /** Where the live entry under this key starts, if there is one. */
  private locate(uuid: string): number | undefined {
    const ring = this.ring;
    const id = this.idBytes;
    if (!ring || !parseCacheId(uuid, id)) return undefined;
    const at = id.readUInt32BE(0) * ALIGN;
    if (at + HEADER_BYTES > this.capacity || !this.isStart(at)) return undefined;
    // A live entry starts there; it is this key's only if the random part matches too.
    return ring.compare(id, 0, 16, at, at + 16) === 0 ? at : undefined;
  }

  private isStart(at: number): boolean {
    const slot = at / ALIGN;
    return (this.starts[slot >> 3]! & (1 << (slot & 7))) !== 0;
  }

  private setStart(at: number, live: boolean): void {
    const slot = at / ALIGN;
    if (live) this.starts[slot >> 3]! |= 1 << (slot & 7);
    else this.starts[slot >> 3]! &= ~(1 << (slot & 7));
  }
}

/** The bytes a value takes in the memory store: its entry's header and its UTF-8 bytes, aligned. */
export function memoryEntryBytes(value: string): number {
  return entrySize(Buffer.byteLength(value, 'utf8'));
}

/** An entry's bytes in the ring: header and value, rounded up so the next entry starts aligned. */
function entrySize(valueBytes: number): number {
  return HEADER_BYTES + Math.ceil(valueBytes / ALIGN) * ALIGN;
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
