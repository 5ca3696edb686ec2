import { expect } from 'chai';
import { CachingFetcher } from '../caching-fetcher.js';
import { StoredFetchError, type StoredDataFetcher } from '../fetcher.js';
import { MemoryFetcher, type StoredDocuments } from '../memory-fetcher.js';

/** A backend that remembers which ids it was asked for, to show what the cache spared it. */
class CountingBackend extends MemoryFetcher {
  readonly calls: string[][] = [];
  failNext = false;

  constructor(documents: StoredDocuments) {
    super(documents);
  }

  override async fetchRequests(ids: string[]): Promise<Map<string, unknown>> {
    this.calls.push([...ids]);
    if (this.failNext) {
      this.failNext = false;
      throw new StoredFetchError('backend down');
    }
    return super.fetchRequests(ids);
  }

  override async fetchImps(ids: string[]): Promise<Map<string, unknown>> {
    this.calls.push(ids.map((id) => `imp:${id}`));
    return super.fetchImps(ids);
  }

  override async fetchAccount(id: string): Promise<unknown> {
    this.calls.push([`account:${id}`]);
    return super.fetchAccount(id);
  }
}

describe('CachingFetcher', () => {
  let clock: number;
  const now = () => clock;
  let backend: CountingBackend;

  beforeEach(() => {
    clock = 1_000_000;
    backend = new CountingBackend({
      requests: { a: { id: 'A' }, b: { id: 'B' }, c: { id: 'C' } },
      imps: { a: { id: 'imp-A' } },
      accounts: { acct: { id: 'acct' } },
    });
  });

  it('asks the backend only for ids it has not cached', async () => {
    const cache = new CachingFetcher(backend, 60_000, 100, { now });
    expect((await cache.fetchRequests(['a'])).get('a')).to.deep.equal({ id: 'A' });
    const second = await cache.fetchRequests(['a', 'b']);
    expect(second.get('a')).to.deep.equal({ id: 'A' });
    expect(second.get('b')).to.deep.equal({ id: 'B' });
    expect(backend.calls).to.deep.equal([['a'], ['b']]);
  });

  it('keeps requests and imps with the same id apart', async () => {
    const cache = new CachingFetcher(backend, 60_000, 100, { now });
    await cache.fetchRequests(['a']);
    expect((await cache.fetchImps(['a'])).get('a')).to.deep.equal({ id: 'imp-A' });
    expect((await cache.fetchRequests(['a'])).get('a')).to.deep.equal({ id: 'A' });
    expect(backend.calls).to.deep.equal([['a'], ['imp:a']]);
  });

  it('fetches again once the TTL has passed', async () => {
    const cache = new CachingFetcher(backend, 5_000, 100, { now });
    await cache.fetchRequests(['a']);
    clock += 4_999;
    await cache.fetchRequests(['a']);
    clock += 1;
    await cache.fetchRequests(['a']);
    expect(backend.calls).to.deep.equal([['a'], ['a']]);
  });

  it('remembers a miss only for the short miss TTL', async () => {
    const cache = new CachingFetcher(backend, 60_000, 100, { now, missTtlMs: 1_000 });
    expect((await cache.fetchRequests(['nope'])).has('nope')).to.equal(false);
    clock += 999;
    expect((await cache.fetchRequests(['nope'])).has('nope')).to.equal(false);
    expect(backend.calls).to.deep.equal([['nope']]);
    clock += 1;
    await cache.fetchRequests(['nope']);
    expect(backend.calls).to.deep.equal([['nope'], ['nope']]);
  });

  it('does not remember misses when the miss TTL is 0', async () => {
    const cache = new CachingFetcher(backend, 60_000, 100, { now, missTtlMs: 0 });
    await cache.fetchRequests(['nope']);
    await cache.fetchRequests(['nope']);
    expect(backend.calls).to.deep.equal([['nope'], ['nope']]);
  });

  it('evicts the least recently used entry beyond maxEntries', async () => {
    const cache = new CachingFetcher(backend, 60_000, 2, { now });
    await cache.fetchRequests(['a', 'b']);
    await cache.fetchRequests(['a']); // a is now the most recently used
    await cache.fetchRequests(['c']); // evicts b
    expect(cache.size).to.equal(2);
    await cache.fetchRequests(['a']);
    await cache.fetchRequests(['b']);
    expect(backend.calls).to.deep.equal([['a', 'b'], ['c'], ['b']]);
  });

  it('never caches a backend failure', async () => {
    const cache = new CachingFetcher(backend, 60_000, 100, { now });
    backend.failNext = true;
    let failure: unknown;
    await cache.fetchRequests(['a']).catch((err: unknown) => (failure = err));
    expect(failure).to.be.instanceOf(StoredFetchError);
    expect((await cache.fetchRequests(['a'])).get('a')).to.deep.equal({ id: 'A' });
    expect(backend.calls).to.deep.equal([['a'], ['a']]);
  });

  it('caches accounts when the backend has them', async () => {
    const cache = new CachingFetcher(backend, 60_000, 100, { now });
    expect(await cache.fetchAccount?.('acct')).to.deep.equal({ id: 'acct' });
    expect(await cache.fetchAccount?.('acct')).to.deep.equal({ id: 'acct' });
    expect(await cache.fetchAccount?.('other')).to.equal(undefined);
    expect(backend.calls).to.deep.equal([['account:acct'], ['account:other']]);
  });

  it('offers no account lookup when the backend has none', () => {
    const noAccounts: StoredDataFetcher = {
      fetchRequests: async () => new Map(),
      fetchImps: async () => new Map(),
    };
    expect(new CachingFetcher(noAccounts, 1_000, 10).fetchAccount).to.equal(undefined);
  });

  describe('invalidation', () => {
    it('drops the changed documents, and only them, so the next fetch reads the backend', async () => {
      const cache = new CachingFetcher(backend, 60_000, 100, { now });
      await cache.fetchRequests(['a', 'b']);
      await cache.fetchImps(['a']);
      cache.invalidate([{ kind: 'request', id: 'a' }]);
      await cache.fetchRequests(['a', 'b']);
      await cache.fetchImps(['a']);
      expect(backend.calls).to.deep.equal([['a', 'b'], ['imp:a'], ['a']]);
    });

    it('drops a remembered miss, so a document created since shows up at once', async () => {
      const documents: StoredDocuments = { requests: {} };
      const cache = new CachingFetcher(new MemoryFetcher(documents), 60_000, 100, { now });
      expect((await cache.fetchRequests(['new'])).has('new')).to.equal(false);
      documents.requests!.new = { id: 'NEW' };
      expect((await cache.fetchRequests(['new'])).has('new'), 'the miss is still remembered').to.equal(false);
      cache.invalidate([{ kind: 'request', id: 'new' }]);
      expect((await cache.fetchRequests(['new'])).get('new')).to.deep.equal({ id: 'NEW' });
    });

    it('drops everything when no change is named', async () => {
      const cache = new CachingFetcher(backend, 60_000, 100, { now });
      await cache.fetchRequests(['a', 'b']);
      cache.invalidate();
      expect(cache.size).to.equal(0);
      await cache.fetchRequests(['a', 'b']);
      expect(backend.calls).to.deep.equal([['a', 'b'], ['a', 'b']]);
    });

    it('does not cache what a fetch in flight during an invalidation read: it may predate the change', async () => {
      let release!: () => void;
      const slow: StoredDataFetcher = {
        fetchRequests: async (ids) => {
          await new Promise<void>((resolve) => (release = resolve));
          return backend.fetchRequests(ids);
        },
        fetchImps: (ids) => backend.fetchImps(ids),
      };
      const cache = new CachingFetcher(slow, 60_000, 100, { now });
      const inFlight = cache.fetchRequests(['a']);
      await Promise.resolve();
      cache.invalidate([{ kind: 'request', id: 'a' }]);
      release();
      expect((await inFlight).get('a'), 'the caller still gets its answer').to.deep.equal({ id: 'A' });
      expect(cache.size).to.equal(0);
    });
  });
});
