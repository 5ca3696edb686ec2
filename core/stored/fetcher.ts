import { ErrorCode } from '../api/index.js';

/**
 * Stored data: JSON documents a host keeps (whole requests, single imps, accounts, stored responses) that requests
 * refer to by id.
 */

/** What bounds one fetch. */
export interface FetchOptions {
  /**
   * Epoch ms by which the caller needs an answer (the request's deadline). A fetch still out then fails with a
   * `StoredFetchError` whose reason is 'deadline'; the backend's own timeouts end the abandoned query.
   */
  deadline?: number;
}

/** Where stored JSON comes from. Every backend (filesystem, PostgreSQL, HTTP) and the layers in front of them. */
export interface StoredDataFetcher {
  /** Stored requests by id. An id that does not exist is simply absent from the map. */
  fetchRequests(ids: string[], options?: FetchOptions): Promise<Map<string, unknown>>;
  /** Stored imps by id. An id that does not exist is simply absent from the map. */
  fetchImps(ids: string[], options?: FetchOptions): Promise<Map<string, unknown>>;
  /** One account's settings, or undefined when there is none. */
  fetchAccount?(id: string, options?: FetchOptions): Promise<unknown | undefined>;
  /** Stored bid responses by id. An id that does not exist is simply absent from the map. */
  fetchResponses?(ids: string[], options?: FetchOptions): Promise<Map<string, unknown>>;
}

/** The kinds of stored document. */
export const STORED_KINDS = ['request', 'imp', 'account', 'response'] as const;
export type StoredKind = (typeof STORED_KINDS)[number];

/** The plural a kind goes by in files, HTTP answers and the admin endpoint (`requests`, `imps`, ...). */
export const PLURAL_OF: Readonly<Record<StoredKind, string>> = { request: 'requests', imp: 'imps', account: 'accounts', response: 'responses' };

/** Why a backend could not answer: it failed, or it did not answer before the request's deadline. */
export type StoredFailureReason = 'failed' | 'deadline';

/**
 * A backend could not answer. Distinct from "not found": a missing id is an absent map entry, never an error, so the
 * caller can tell the client's mistake (400) from the host's trouble (503).
 */
export class StoredFetchError extends Error {
  readonly code = ErrorCode.StoredFetchFailed;

  constructor(
    message: string,
    readonly details: Record<string, unknown> & { kind?: StoredKind; ids?: string[]; reason?: StoredFailureReason } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoredFetchError';
  }

  /**
   * What was unavailable, for the client: the kind and ids and whether the backend failed or was too slow, never the
   * backend's own message (which may name internal hosts).
   */
  get unavailable(): string {
    const { kind, ids, reason } = this.details;
    const what = kind ? `stored ${kind}${ids && ids.length > 0 ? ` ${ids.map((id) => JSON.stringify(id)).join(', ')}` : ''}` : 'stored data';
    return reason === 'deadline' ? `${what}: the backend did not answer before the request's deadline` : `${what}: the backend failed`;
  }
}

/**
 * A stored document the backend holds but that is not valid JSON: the backend works, the document cannot be used.
 * A request naming it is refused with a 400 naming the document (as Prebid Server answers), not a 503.
 */
export class MalformedStoredData extends StoredFetchError {
  constructor(
    readonly kind: StoredKind,
    readonly id: string,
    cause: unknown,
    details?: Record<string, unknown>,
  ) {
    super(`stored ${kind} "${id}" is not valid JSON`, { ...details, kind, ids: [id] }, { cause });
    this.name = 'MalformedStoredData';
  }

  /** The 400 line a request naming the document gets (every endpoint words it alike). */
  get invalidRequestMessage(): string {
    return `Invalid JSON Document: stored ${this.kind} with id "${this.id}" is not valid JSON; the host must correct it`;
  }
}

/** Wraps any thrown value as a StoredFetchError (keeping one that already is, with what it lacks filled in). */
export function asStoredFetchError(err: unknown, what: string, details: StoredFetchError['details'] = {}): StoredFetchError {
  if (err instanceof StoredFetchError) {
    for (const [key, value] of Object.entries(details)) if (err.details[key] === undefined) err.details[key] = value;
    return err;
  }
  const reason = err instanceof Error ? err.message : String(err);
  return new StoredFetchError(`${what}: ${reason}`, details, { cause: err });
}

/** Removes repeated ids, keeping the first occurrence's order. */
export function uniqueIds(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/** The documents a fetcher keeps for one id list, or undefined when the fetcher has no method for that kind. */
export function fetchFrom(fetcher: StoredDataFetcher, kind: StoredKind, ids: string[], options?: FetchOptions): Promise<Map<string, unknown>> | undefined {
  switch (kind) {
    case 'request':
      return fetcher.fetchRequests(ids, options);
    case 'imp':
      return fetcher.fetchImps(ids, options);
    case 'response':
      return fetcher.fetchResponses?.(ids, options);
    case 'account': {
      const fetchAccount = fetcher.fetchAccount?.bind(fetcher);
      if (!fetchAccount) return undefined;
      return Promise.all(ids.map(async (id) => [id, await fetchAccount(id, options)] as const)).then(
        (pairs) => new Map(pairs.filter(([, account]) => account !== undefined)),
      );
    }
  }
}

/**
 * A fetcher in front of another that handles every kind alike: the four methods become one `fetchKind`. It offers
 * accounts and stored responses only when the fetcher behind it does.
 */
export abstract class KindFetcher implements StoredDataFetcher {
  readonly fetchAccount?: (id: string, options?: FetchOptions) => Promise<unknown | undefined>;
  readonly fetchResponses?: (ids: string[], options?: FetchOptions) => Promise<Map<string, unknown>>;

  constructor(inner: StoredDataFetcher) {
    if (inner.fetchAccount) this.fetchAccount = async (id, options) => (await this.fetchKind('account', [id], options)).get(id);
    if (inner.fetchResponses) this.fetchResponses = (ids, options) => this.fetchKind('response', ids, options);
  }

  fetchRequests(ids: string[], options?: FetchOptions): Promise<Map<string, unknown>> {
    return this.fetchKind('request', ids, options);
  }

  fetchImps(ids: string[], options?: FetchOptions): Promise<Map<string, unknown>> {
    return this.fetchKind('imp', ids, options);
  }

  protected abstract fetchKind(kind: StoredKind, ids: string[], options: FetchOptions | undefined): Promise<Map<string, unknown>>;
}
