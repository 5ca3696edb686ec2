import { isJsonObject } from '../api/index.js';
import { PLURAL_OF, STORED_KINDS, type StoredKind } from './fetcher.js';

/** One stored document that changed (was created, updated or deleted) in the backend. */
export interface StoredChange {
  kind: StoredKind;
  id: string;
}

/** Told of changes: the documents that changed, or undefined when anything may have (a reload, a lost feed). */
export type InvalidationSink = (changes?: readonly StoredChange[]) => void;

/** A source of changes for one backend: PostgreSQL's notifications and polling, a folder watch, an HTTP feed. */
export interface ChangeFeed {
  /** False while the feed cannot tell of changes (its connection is down): the cache then keeps documents for less long. */
  readonly connected: boolean;
  close(): Promise<void>;
}

const KIND_OF_PLURAL = new Map<string, StoredKind>(STORED_KINDS.map((kind) => [PLURAL_OF[kind], kind]));

/** The kind a plural names (`requests` is `request`), or undefined. */
export function kindOfPlural(plural: string): StoredKind | undefined {
  return KIND_OF_PLURAL.get(plural);
}

export type InvalidationRequest = { all: true } | { changes: StoredChange[] } | { error: string };

/**
 * Reads `{"all": true}` or `{"requests": ["id", ...], "imps": [...], "accounts": [...], "responses": [...]}`: the body
 * of the admin endpoint that invalidates stored data. Names the first thing wrong.
 */
export function readInvalidationRequest(body: unknown): InvalidationRequest {
  const usage = 'the body must be {"all": true} or {"requests": ["id"], "imps": [...], "accounts": [...], "responses": [...]}';
  if (!isJsonObject(body)) return { error: usage };
  if (body.all === true) return Object.keys(body).length === 1 ? { all: true } : { error: `"all" goes alone: ${usage}` };
  const changes: StoredChange[] = [];
  for (const [member, ids] of Object.entries(body)) {
    const kind = kindOfPlural(member);
    if (!kind) return { error: `unknown member "${member}": ${usage}` };
    if (!Array.isArray(ids) || !ids.every((id): id is string => typeof id === 'string' && id !== '')) {
      return { error: `"${member}" must be an array of non-empty id strings` };
    }
    for (const id of ids) changes.push({ kind, id });
  }
  if (changes.length === 0) return { error: usage };
  return { changes };
}
