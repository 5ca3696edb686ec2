import { uniqueIds, type StoredDataFetcher, type StoredKind } from './fetcher.js';

export interface CachingFetcherOptions {
  /**
   * How long an id the backend did not have is remembered as missing. Default 1000 ms (never longer than the TTL);
   * 0 turns it off. Short on purpose: it spares the backend a burst of requests for an unknown id (a mistyped AMP
   * tag_id on a busy page) while a newly stored document still shows up within a second.
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
 */
export class CachingFetcher implements StoredDataFetcher {
  readonly fetchAccount?: (id: string) => Promise<unknown | undefined>;

  private readonly entries = new Map<string, Entry>();
  private readonly missTtlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly inner: StoredDataFetcher,
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    options: CachingFetcherOptions = {},
  ) {
    this.missTtlMs = Math.min(options.missTtlMs ?? 1000, ttlMs);
    this.now = options.now ?? Date.now;
    const fetchInnerAccount = inner.fetchAccount?.bind(inner);
    if (fetchInnerAccount) {
      const fetchAccountAsMap = async ([id]: string[]) => {
        const account = await fetchInnerAccount(id);
        return new Map(account === undefined ? [] : [[id, account]]);
      };
      this.fetchAccount = async (id) => (await this.fetchThrough('account', [id], fetchAccountAsMap)).get(id);
    }
  }

  fetchRequests(ids: string[]): Promise<Map<string, unknown>> {
    return this.fetchThrough('request', ids, (missing) => this.inner.fetchRequests(missing));
  }

  fetchImps(ids: string[]): Promise<Map<string, unknown>> {
    return this.fetchThrough('imp', ids, (missing) => this.inner.fetchImps(missing));
  }

  /** Number of cached entries, documents and misses together. */
  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }

  private async fetchThrough(
    kind: StoredKind,
    ids: string[],
    fetchFromBackend: (ids: string[]) => Promise<Map<string, unknown>>,
  ): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    const uncached: string[] = [];
    for (const id of uniqueIds(ids)) {
      const cached = this.lookup(kind, id);
      if (cached === undefined) uncached.push(id);
      else if (cached !== MISSING) found.set(id, cached);
    }
    if (uncached.length === 0) return found;

    const fetched = await fetchFromBackend(uncached);
    for (const id of uncached) {
      if (fetched.has(id)) {
        found.set(id, fetched.get(id));
        this.remember(kind, id, fetched.get(id), this.ttlMs);
      } else {
        this.remember(kind, id, MISSING, this.missTtlMs);
      }
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

function cacheKey(kind: StoredKind, id: string): string {
  return `${kind}:${id}`;
}
