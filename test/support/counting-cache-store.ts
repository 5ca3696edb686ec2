import { MemoryCacheStore, type CacheEntry, type CacheStore, type StoredValue } from '../../core/cache/index.js';

/**
 * The memory store under keys "0", "1", ... in put order, as the shared fixtures expect: the store's own keys carry
 * their entry's place in its ring, so the fixtures' keys are mapped onto them.
 */
export class CountingCacheStore implements CacheStore {
  private readonly inner = new MemoryCacheStore();
  private readonly innerKeys = new Map<string, string>();
  private next = 0;

  async put(entries: CacheEntry[]): Promise<string[]> {
    const keys = await this.inner.put(entries);
    return keys.map((key) => {
      const counted = String(this.next++);
      this.innerKeys.set(counted, key);
      return counted;
    });
  }

  async get(uuid: string): Promise<StoredValue | undefined> {
    const key = this.innerKeys.get(uuid);
    return key === undefined ? undefined : this.inner.get(key);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
