/**
 * Stored data: JSON documents a host keeps (whole requests, single imps, accounts) that requests refer to by id.
 */

/** Where stored JSON comes from. Every backend (filesystem, PostgreSQL, HTTP) and the cache in front of them. */
export interface StoredDataFetcher {
  /** Stored requests by id. An id that does not exist is simply absent from the map. */
  fetchRequests(ids: string[]): Promise<Map<string, unknown>>;
  /** Stored imps by id. An id that does not exist is simply absent from the map. */
  fetchImps(ids: string[]): Promise<Map<string, unknown>>;
  /** One account's settings, or undefined when there is none. */
  fetchAccount?(id: string): Promise<unknown | undefined>;
}

/** The kinds of stored document; also the folder names of the filesystem backend. */
export type StoredKind = 'request' | 'imp' | 'account';

/**
 * Code of a backend failure (unreadable file, database down, HTTP error). Kept beside the SDK's codes until the SDK's
 * `ErrorCode` gains it.
 */
export const STORED_FETCH_FAILED = 'GAVEL_E_STORED_FETCH_FAILED' as const;

/**
 * A backend could not answer. Distinct from "not found": a missing id is an absent map entry, never an error, so the
 * caller can tell the client's mistake (400) from the host's trouble (500).
 */
export class StoredFetchError extends Error {
  readonly code = STORED_FETCH_FAILED;

  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoredFetchError';
  }
}

/** Wraps any thrown value as a StoredFetchError (keeping one that already is). */
export function asStoredFetchError(err: unknown, what: string, details?: Record<string, unknown>): StoredFetchError {
  if (err instanceof StoredFetchError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new StoredFetchError(`${what}: ${reason}`, details, { cause: err });
}

/** Removes repeated ids, keeping the first occurrence's order. */
export function uniqueIds(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
