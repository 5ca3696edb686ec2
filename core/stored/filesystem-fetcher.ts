import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { asStoredFetchError, MalformedStoredData, PLURAL_OF, uniqueIds, type StoredDataFetcher, type StoredKind } from './fetcher.js';

/**
 * Reads stored JSON from files: `<dir>/requests/<id>.json`, `<dir>/imps/<id>.json`, `<dir>/accounts/<id>.json`,
 * `<dir>/responses/<id>.json`.
 * Ids come from requests, so an id that could leave its folder (a path separator, `..`, a NUL) is treated as not
 * found rather than opened.
 */
export class FilesystemFetcher implements StoredDataFetcher {
  constructor(private readonly dir: string) {}

  fetchRequests(ids: string[]): Promise<Map<string, unknown>> {
    return this.readMany('request', ids);
  }

  fetchImps(ids: string[]): Promise<Map<string, unknown>> {
    return this.readMany('imp', ids);
  }

  fetchAccount(id: string): Promise<unknown | undefined> {
    return this.readOne('account', id);
  }

  fetchResponses(ids: string[]): Promise<Map<string, unknown>> {
    return this.readMany('response', ids);
  }

  private async readMany(kind: StoredKind, ids: string[]): Promise<Map<string, unknown>> {
    const unique = uniqueIds(ids);
    const documents = await Promise.all(unique.map((id) => this.readOne(kind, id)));
    const found = new Map<string, unknown>();
    unique.forEach((id, i) => {
      if (documents[i] !== undefined) found.set(id, documents[i]);
    });
    return found;
  }

  private async readOne(kind: StoredKind, id: string): Promise<unknown | undefined> {
    if (!isSafeFileId(id)) return undefined;
    const path = join(this.dir, PLURAL_OF[kind], `${id}.json`);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw asStoredFetchError(err, `cannot read stored ${kind} "${id}"`, { path, kind, ids: [id] });
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new MalformedStoredData(kind, id, err, { path });
    }
  }
}

/** True for an id that names a file inside its folder and nothing else. */
export function isSafeFileId(id: unknown): id is string {
  return (
    typeof id === 'string' &&
    id.length > 0 &&
    id.length <= 255 &&
    !id.includes('/') &&
    !id.includes('\\') &&
    !id.includes('..') &&
    !id.includes('\0')
  );
}
