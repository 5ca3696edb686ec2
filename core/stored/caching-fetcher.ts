import { fetchFrom, KindFetcher, uniqueIds, type FetchOptions, type StoredDataFetcher, type StoredKind } from './fetcher.js';
import type { StoredChange } from './invalidation.js';

export interface CachingFetcherOptions {
  /**
   * How long an id the backend did not have is remembered as missing. Default 1000 ms (never longer than the TTL);
   * 0 turns it off. Short on purpose: it spares the backend a burst of requests for an unknown id (a mistyped AMP
   * tag_id on a busy page) while a newly stored document still shows up within a second, sooner when the backend
   * reports its changes.
   */
  missTtlMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/** A cached miss, told apart from a cached document (which can be any JSON value). */
const MISSING = Symbol('missing');

interface Entry {
  value: unknown;
  expiresAt: number;
}

/**
 * An in-memory cache in front of another fetcher. Documents are kept for `ttlMs`, at most `maxEntries` of them (the
 * least recently used go first). Backend errors are never cached. Cached documents are shared between requests:
 * callers must not change what they get (resolveStoredRequest copies before merging).
 *
 * `invalidate` drops what a change made stale. A fetch that was in flight while anything was invalidated answers its
 * caller but is not cached: it may have read the document as it was before the change.
 */
export class CachingFetcher extends KindFetcher {
  private readonly entries = new Map<string, Entry>();
  private readonly missTtlMs: number;
  private readonly now: () => number;
  /** Counts invalidations; a fetch that saw it move while in flight keeps its result out of the cache. */
  private epoch = 0;

  constructor(
    private readonly inner: StoredDataFetcher,
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    options: CachingFetcherOptions = {},
  ) {
    super(inner);
    this.missTtlMs = Math.min(options.missTtlMs ?? 1000, ttlMs);
    this.now = options.now ?? Date.now;
  }

  /** Number of cached entries, documents and misses together. */
  get size(): number {
    return this.entries.size;
  }

  /** Forgets the changed documents (or everything, given no change). */
  invalidate(changes?: readonly StoredChange[]): void {
    this.epoch++;
    if (changes === undefined) {
      this.entries.clear();
      return;
    }
    for (const { kind, id } of changes) this.entries.delete(cacheKey(kind, id));
  }

  clear(): void {
    this.invalidate();
  }

  /**
   * What the cache holds for one id right now, without asking the backend or waiting: `{document}`, `{missing}` for
   * a remembered miss, or undefined when nothing fresh is cached. For a caller that would otherwise pay a fetch's
   * promises on every request for what is almost always cached (the request's account).
   */
  peek(kind: StoredKind, id: string): { document: unknown } | { missing: true } | undefined {
    const cached = this.lookup(kind, id);
    if (cached === undefined) return undefined;
    return cached === MISSING ? PEEKED_MISSING : { document: cached };
  }

  protected async fetchKind(kind: StoredKind, ids: string[], options: FetchOptions | undefined): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    const uncached: string[] = [];
    for (const id of uniqueIds(ids)) {
      const cached = this.lookup(kind, id);
      if (cached === undefined) uncached.push(id);
      else if (cached !== MISSING) found.set(id, cached);
    }
    if (uncached.length === 0) return found;

    const epoch = this.epoch;
    const fetched = (await fetchFrom(this.inner, kind, uncached, options)) ?? new Map<string, unknown>();
    const cacheable = epoch === this.epoch;
    for (const id of uncached) {
      const present = fetched.has(id);
      if (present) found.set(id, fetched.get(id));
      if (cacheable) this.remember(kind, id, present ? fetched.get(id) : MISSING, present ? this.ttlMs : this.missTtlMs);
    }
    return found;
  }

  /** The cached value (a document or MISSING), or undefined when nothing fresh is cached. */
  private lookup(kind: StoredKind, id: string): unknown {
    const key = cacheKey(kind, id);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-inserting moves the key to the end of the Map's order, which is what makes eviction least-recently-used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  private remember(kind: StoredKind, id: string, value: unknown, ttlMs: number): void {
    if (ttlMs <= 0 || this.maxEntries < 1) return;
    const key = cacheKey(kind, id);
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}

const PEEKED_MISSING = Object.freeze({ missing: true as const });

function cacheKey(kind: StoredKind, id: string): string {
  return `${kind}:${id}`;
}
