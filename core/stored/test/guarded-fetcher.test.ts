import { expect } from 'chai';
import { ErrorCode } from '../../api/index.js';
import { BackendStatus } from '../../metrics/readiness.js';
import { MalformedStoredData, StoredFetchError, type StoredDataFetcher } from '../fetcher.js';
import { GuardedFetcher } from '../guarded-fetcher.js';

/** A backend whose calls wait until the test answers them, and that counts them. */
class HeldBackend implements StoredDataFetcher {
  readonly calls: string[][] = [];
  private readonly waiting: Array<{ ids: string[]; resolve: (found: Map<string, unknown>) => void; reject: (err: unknown) => void }> = [];

  fetchRequests(ids: string[]): Promise<Map<string, unknown>> {
    this.calls.push([...ids]);
    return new Promise((resolve, reject) => this.waiting.push({ ids, resolve, reject }));
  }

  async fetchImps(): Promise<Map<string, unknown>> {
    return new Map();
  }

  /** Answers every waiting call: each id gets `{id}` unless listed as missing. */
  answerAll(missing: string[] = []): void {
    for (const call of this.waiting.splice(0)) call.resolve(new Map(call.ids.filter((id) => !missing.includes(id)).map((id) => [id, { id }])));
  }

  failAll(err: unknown): void {
    for (const call of this.waiting.splice(0)) call.reject(err);
  }
}

const now = () => performance.timeOrigin + performance.now();

describe('GuardedFetcher', () => {
  it('makes one backend call for a hundred concurrent misses of one id', async () => {
    const backend = new HeldBackend();
    const guarded = new GuardedFetcher(backend);
    const fetches = Array.from({ length: 100 }, () => guarded.fetchRequests(['x']));
    backend.answerAll();
    const answers = await Promise.all(fetches);
    expect(backend.calls).to.deep.equal([['x']]);
    expect(answers.every((found) => (found.get('x') as { id: string }).id === 'x')).to.equal(true);
    expect(guarded.inFlight).to.equal(0);
  });

  it('joins the ids already in flight and asks only for the others', async () => {
    const backend = new HeldBackend();
    const guarded = new GuardedFetcher(backend);
    const first = guarded.fetchRequests(['a', 'b']);
    const second = guarded.fetchRequests(['b', 'c', 'gone']);
    backend.answerAll(['gone']);
    expect(Object.fromEntries(await first)).to.deep.equal({ a: { id: 'a' }, b: { id: 'b' } });
    expect(Object.fromEntries(await second)).to.deep.equal({ b: { id: 'b' }, c: { id: 'c' } });
    expect(backend.calls).to.deep.equal([['a', 'b'], ['c', 'gone']]);
  });

  it("gives up at the caller's deadline with an error naming the kind and ids, while others keep waiting on the call", async () => {
    const backend = new HeldBackend();
    const guarded = new GuardedFetcher(backend);
    const started = now();
    const hurried = guarded.fetchRequests(['slow-id'], { deadline: started + 60 }).then(() => undefined, (err: unknown) => err);
    const patient = guarded.fetchRequests(['slow-id'], { deadline: started + 5_000 });
    const error = (await hurried) as StoredFetchError;
    const waited = now() - started;
    expect(error).to.be.instanceOf(StoredFetchError);
    expect(error.code).to.equal(ErrorCode.StoredFetchFailed);
    expect(error.details).to.include({ kind: 'request', reason: 'deadline' });
    expect(error.details.ids).to.deep.equal(['slow-id']);
    expect(error.unavailable).to.equal('stored request "slow-id": the backend did not answer before the request\'s deadline');
    expect(waited).to.be.within(55, 1000);
    backend.answerAll();
    expect((await patient).get('slow-id')).to.deep.equal({ id: 'slow-id' });
  });

  it('fails at once when the deadline has already passed', async () => {
    const backend = new HeldBackend();
    const error = await new GuardedFetcher(backend).fetchRequests(['a'], { deadline: now() - 1 }).then(() => undefined, (err: unknown) => err);
    expect(error).to.have.nested.property('details.reason', 'deadline');
    backend.answerAll();
  });

  it('marks the backend down when it fails and up when it answers, naming what failed', async () => {
    const backend = new HeldBackend();
    const status = new BackendStatus('storedData');
    const changes: boolean[] = [];
    status.onChange((up) => changes.push(up));
    const guarded = new GuardedFetcher(backend, { status });
    const failing = guarded.fetchRequests(['a']).then(() => undefined, (err: unknown) => err);
    backend.failAll(new Error('connection terminated'));
    const error = (await failing) as StoredFetchError;
    expect(error.details).to.include({ kind: 'request', reason: 'failed' });
    expect(error.unavailable).to.equal('stored request "a": the backend failed');
    expect(status.up).to.equal(false);
    const again = guarded.fetchRequests(['a']);
    backend.answerAll();
    await again;
    expect(status.up).to.equal(true);
    expect(changes).to.deep.equal([false, true]);
  });

  it('does not mark the backend down for a document that is not valid JSON', async () => {
    const status = new BackendStatus('storedData');
    const broken: StoredDataFetcher = {
      fetchRequests: async () => {
        throw new MalformedStoredData('request', 'a', new SyntaxError('Unexpected token'));
      },
      fetchImps: async () => new Map(),
    };
    await new GuardedFetcher(broken, { status }).fetchRequests(['a']).catch(() => undefined);
    expect(status.up).to.equal(true);
  });

  it('stops joining a call in flight for an id that changed meanwhile', async () => {
    const backend = new HeldBackend();
    const guarded = new GuardedFetcher(backend);
    const before = guarded.fetchRequests(['a']);
    guarded.invalidate([{ kind: 'request', id: 'a' }]);
    const after = guarded.fetchRequests(['a']);
    backend.answerAll();
    await Promise.all([before, after]);
    expect(backend.calls).to.deep.equal([['a'], ['a']]);
  });

  it('single-flights accounts too, and answers undefined for none', async () => {
    let calls = 0;
    const backend: StoredDataFetcher = {
      fetchRequests: async () => new Map(),
      fetchImps: async () => new Map(),
      fetchAccount: async (id) => {
        calls++;
        await new Promise((resolve) => setTimeout(resolve, 10));
        return id === 'acct' ? { id } : undefined;
      },
    };
    const guarded = new GuardedFetcher(backend);
    const accounts = await Promise.all([guarded.fetchAccount!('acct'), guarded.fetchAccount!('acct'), guarded.fetchAccount!('nobody')]);
    expect(accounts).to.deep.equal([{ id: 'acct' }, { id: 'acct' }, undefined]);
    expect(calls).to.equal(2);
  });
});
