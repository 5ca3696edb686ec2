import { expect } from 'chai';
import { CircuitBreaker } from '../breaker.js';
import { EmbeddedCacheClient, type CacheProblem } from '../client.js';
import { MemoryCacheStore, type CacheEntry, type CacheStore, type StoredValue } from '../store.js';

describe('CircuitBreaker', () => {
  const changes: boolean[] = [];
  const breaker = () => new CircuitBreaker({ failures: 3, onChange: (closed) => changes.push(closed) });
  beforeEach(() => (changes.length = 0));

  it('opens after the failures in a row and lets nothing through until the health check closes it', () => {
    const b = breaker();
    b.failure();
    b.failure();
    expect(b.allow()).to.equal(true);
    b.failure();
    expect(b.open).to.equal(true);
    expect(b.allow()).to.equal(false);
    expect(b.allow()).to.equal(false);
    b.reset();
    expect(b.allow()).to.equal(true);
    expect(changes).to.deep.equal([false, true]);
  });

  it('counts failures in a row only: a success in between starts over', () => {
    const b = breaker();
    b.failure();
    b.failure();
    b.success();
    b.failure();
    b.failure();
    expect(b.open).to.equal(false);
  });

  it('trips at once on a failed health check, telling of each change once', () => {
    const b = breaker();
    b.trip();
    b.trip();
    expect(b.allow()).to.equal(false);
    b.reset();
    b.reset();
    expect(changes).to.deep.equal([false, true]);
  });
});

describe('EmbeddedCacheClient with a breaker', () => {
  /** A store across a network (as Redis is) that fails while `down`, counting its calls; it keeps values in memory. */
  class FlakyStore implements CacheStore {
    private readonly memory = new MemoryCacheStore();
    down = true;
    calls = 0;
    async put(entries: CacheEntry[]): Promise<string[]> {
      this.calls++;
      if (this.down) throw new Error('connection refused');
      return this.memory.put(entries);
    }
    get(uuid: string): Promise<StoredValue | undefined> {
      return this.memory.get(uuid);
    }
    close(): Promise<void> {
      return this.memory.close();
    }
  }

  it('reports failures, then skips the store without calling it while the breaker is open, until it is reset', async () => {
    const store = new FlakyStore();
    const breaker = new CircuitBreaker({ failures: 2 });
    const client = new EmbeddedCacheClient(store, undefined, { breaker });
    const problems: CacheProblem[] = [];
    const put = () => client.put([{ type: 'json', value: 1 }], Date.now() + 500, (problem) => problems.push(problem));
    expect(await put()).to.deep.equal([undefined]);
    expect(await put()).to.deep.equal([undefined]);
    expect(await put()).to.deep.equal([undefined]);
    expect(await put()).to.deep.equal([undefined]);
    expect(problems).to.deep.equal(['failed', 'failed', 'skipped', 'skipped']);
    expect(store.calls).to.equal(2);
    store.down = false;
    breaker.reset();
    const [uuid] = await put();
    expect(uuid).to.be.a('string');
    expect(store.calls).to.equal(3);
  });

  it('neither reports nor blames the store when the deadline has already passed', async () => {
    const store = new FlakyStore();
    const breaker = new CircuitBreaker({ failures: 1 });
    const problems: CacheProblem[] = [];
    await new EmbeddedCacheClient(store, undefined, { breaker }).put([{ type: 'json', value: 1 }], Date.now() - 1, (problem) => problems.push(problem));
    expect(problems).to.deep.equal([]);
    expect(store.calls).to.equal(0);
    expect(breaker.open).to.equal(false);
  });
});
