import { loadGot } from '../outbound/got.js';
import { asStoredFetchError, StoredFetchError, uniqueIds, type StoredDataFetcher } from './fetcher.js';
import { isJsonObject } from '../api/index.js';

export interface HttpFetcherOptions {
  /** Endpoint answering `?request-ids=[...]&imp-ids=[...]` with `{"requests":{...},"imps":{...}}`. */
  url: string;
  /** Endpoint answering `?account-ids=[...]` with `{"accounts":{...}}`; defaults to `url`. */
  accountsUrl?: string;
  /** Time limit of one call. Default 1000 ms. */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

/** Which list a call asks for: the query parameter carrying the ids and the answer's member holding the documents. */
interface IdList {
  param: 'request-ids' | 'imp-ids' | 'account-ids';
  member: 'requests' | 'imps' | 'accounts';
}
const REQUESTS: IdList = { param: 'request-ids', member: 'requests' };
const IMPS: IdList = { param: 'imp-ids', member: 'imps' };
const ACCOUNTS: IdList = { param: 'account-ids', member: 'accounts' };

const DEFAULT_TIMEOUT_MS = 1000;

/**
 * Fetches stored JSON over HTTP with the Prebid Server HTTP fetcher protocol:
 * `GET <url>?request-ids=["a","b"]&imp-ids=["c"]` answers `{"requests":{"a":{...}},"imps":{"c":{...}}}`.
 * Ids the server does not know are left out of its answer (or given as null); both mean "not found".
 */
export class HttpFetcher implements StoredDataFetcher {
  private readonly timeoutMs: number;

  constructor(private readonly options: HttpFetcherOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  fetchRequests(ids: string[]): Promise<Map<string, unknown>> {
    return this.fetchList(this.options.url, REQUESTS, ids);
  }

  fetchImps(ids: string[]): Promise<Map<string, unknown>> {
    return this.fetchList(this.options.url, IMPS, ids);
  }

  async fetchAccount(id: string): Promise<unknown | undefined> {
    const found = await this.fetchList(this.options.accountsUrl ?? this.options.url, ACCOUNTS, [id]);
    return found.get(id);
  }

  private async fetchList(endpoint: string, list: IdList, ids: string[]): Promise<Map<string, unknown>> {
    const unique = uniqueIds(ids);
    if (unique.length === 0) return new Map();
    const url = new URL(endpoint);
    url.searchParams.set(list.param, JSON.stringify(unique));
    try {
      return pickDocuments(await getJson(url, this.timeoutMs, this.options.headers), list, unique, url);
    } catch (err) {
      throw asStoredFetchError(err, 'stored data request failed', { kind: KIND_OF[list.member], ids: unique });
    }
  }
}

const KIND_OF = { requests: 'request', imps: 'imp', accounts: 'account' } as const;

/** GETs a JSON document with the stored-data server's conventions: one try, a time limit, 2xx only. */
export async function getJson(url: URL, timeoutMs: number, headers?: Record<string, string>): Promise<unknown> {
  let response;
  try {
    const got = await loadGot();
    response = await got(url, { headers, timeout: { request: timeoutMs }, retry: { limit: 0 }, throwHttpErrors: false });
  } catch (err) {
    throw asStoredFetchError(err, `stored data request to ${url.origin}${url.pathname} failed`, { url: url.href });
  }
  if (response.statusCode < 200 || response.statusCode >= 300) {
    throw new StoredFetchError(`stored data server answered HTTP ${response.statusCode}`, { url: url.href });
  }
  try {
    return JSON.parse(response.body) as unknown;
  } catch (err) {
    throw new StoredFetchError('stored data server answered with invalid JSON', { url: url.href }, { cause: err });
  }
}

function pickDocuments(answer: unknown, list: IdList, askedFor: string[], url: URL): Map<string, unknown> {
  if (!isJsonObject(answer)) {
    throw new StoredFetchError('stored data server answer is not a JSON object', { url: url.href });
  }
  const documents = answer[list.member];
  const found = new Map<string, unknown>();
  if (documents === undefined || documents === null) return found;
  if (!isJsonObject(documents)) {
    throw new StoredFetchError(`stored data server answer has a non-object "${list.member}"`, { url: url.href });
  }
  for (const id of askedFor) {
    const document = Object.hasOwn(documents, id) ? documents[id] : undefined;
    if (document !== undefined && document !== null) found.set(id, document);
  }
  return found;
}
