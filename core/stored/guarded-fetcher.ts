import type { BackendStatus } from '../metrics/readiness.js';
import { asStoredFetchError, fetchFrom, KindFetcher, MalformedStoredData, StoredFetchError, uniqueIds, type FetchOptions, type StoredDataFetcher, type StoredKind } from './fetcher.js';
import type { StoredChange } from './invalidation.js';

/** What a backend answered for one id: its document, or ABSENT. */
const ABSENT = Symbol('absent');

export interface GuardedFetcherOptions {
  /** Marked down when the backend fails, up when it answers. */
  status?: BackendStatus;
  /** Epoch ms, on the clock request deadlines are computed with. */
  now?: () => number;
}

const systemNow = () => performance.timeOrigin + performance.now();

/**
 * What stands between requests and a backend:
 * - single flight: concurrent fetches of one id share one backend call (a hundred requests missing the cache for one
 *   stored request make one query, not a hundred);
 * - the request's deadline: a caller waits at most until its deadline, then gets a StoredFetchError whose reason is
 *   'deadline' (the call itself goes on, bounded by the backend's own timeouts, for whoever else waits on it);
 * - the backend's status for readiness: a failure marks it down, an answer marks it up.
 *
 * Errors name the kind and ids that could not be fetched.
 */
export class GuardedFetcher extends KindFetcher {
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly now: () => number;

  constructor(
    private readonly inner: StoredDataFetcher,
    private readonly options: GuardedFetcherOptions = {},
  ) {
    super(inner);
    this.now = options.now ?? systemNow;
  }

  /** Calls in flight for changed ids are no longer joined: a fetch after a change must read the backend anew. */
  invalidate(changes?: readonly StoredChange[]): void {
    if (changes === undefined) this.inflight.clear();
    else for (const { kind, id } of changes) this.inflight.delete(flightKey(kind, id));
  }

  /** Number of ids being fetched right now. */
  get inFlight(): number {
    return this.inflight.size;
  }

  protected async fetchKind(kind: StoredKind, ids: string[], options: FetchOptions | undefined): Promise<Map<string, unknown>> {
    const unique = uniqueIds(ids);
    if (unique.length === 0) return new Map();
    const fresh = unique.filter((id) => !this.inflight.has(flightKey(kind, id)));
    if (fresh.length > 0) {
      const call = this.callBackend(kind, fresh);
      for (const id of fresh) {
        const key = flightKey(kind, id);
        const flight = call.then((found) => (found.has(id) ? found.get(id) : ABSENT));
        this.inflight.set(key, flight);
        const land = () => {
          if (this.inflight.get(key) === flight) this.inflight.delete(key);
        };
        flight.then(land, land);
      }
    }
    const flights = unique.map((id) => this.inflight.get(flightKey(kind, id))!);
    const documents = await this.withinDeadline(Promise.all(flights), options?.deadline, kind, unique);
    const found = new Map<string, unknown>();
    unique.forEach((id, i) => {
      if (documents[i] !== ABSENT) found.set(id, documents[i]);
    });
    return found;
  }

  private async callBackend(kind: StoredKind, ids: string[]): Promise<Map<string, unknown>> {
    try {
      const found = (await fetchFrom(this.inner, kind, ids)) ?? new Map<string, unknown>();
      this.options.status?.markUp();
      return found;
    } catch (err) {
      const error = asStoredFetchError(err, `cannot fetch stored ${kind} data`, { kind, ids, reason: 'failed' });
      // A document that is not valid JSON is the document's problem, not the backend's.
      if (!(error instanceof MalformedStoredData)) this.options.status?.markDown(error.message);
      throw error;
    }
  }

  private withinDeadline<T>(work: Promise<T>, deadline: number | undefined, kind: StoredKind, ids: string[]): Promise<T> {
    if (deadline === undefined) return work;
    const late = () => new StoredFetchError(`stored ${kind} data did not arrive before the request's deadline`, { kind, ids, reason: 'deadline' });
    const msLeft = deadline - this.now();
    if (msLeft <= 0) {
      work.catch(() => undefined);
      return Promise.reject(late());
    }
    let timer: NodeJS.Timeout | undefined;
    const expiry = new Promise<never>((_, reject) => {
      // Whole ms: Node keeps a timer list per distinct duration, and a fractional one would be a new list per call.
      timer = setTimeout(() => reject(late()), Math.ceil(msLeft));
    });
    return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
  }
}

function flightKey(kind: StoredKind, id: string): string {
  return `${kind}:${id}`;
}
