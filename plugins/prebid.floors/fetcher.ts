/**
 * Floors fetched from a URL per account (Prebid Server's `price_floors.fetch`): fetched off the request path with
 * got, kept in a bounded in-memory cache, refreshed every `period_sec` and dropped after `max_age_sec`. A request
 * never waits for a fetch: the first one for a URL starts it and runs on its own rules (status `inprogress`), as
 * Prebid Server does.
 */
import type { PluginLogger } from '../../core/api/index.js';
import { compileGroup, readFloorData, validModelGroups, type CompiledGroup, type FloorData } from './rules.js';

/** An account's fetch settings, Prebid Server's defaults filled in. */
export interface FetchSettings {
  url: string;
  timeoutMs: number;
  maxFileSizeKb: number;
  maxRules: number;
  maxAgeSec: number;
  periodSec: number;
  maxSchemaDims: number;
}

/** Prebid Server's account defaults (`account_defaults.price_floors.fetch`). */
export const FETCH_DEFAULTS: Omit<FetchSettings, 'url'> = {
  timeoutMs: 3000,
  maxFileSizeKb: 100,
  maxRules: 1000,
  maxAgeSec: 86400,
  periodSec: 3600,
  maxSchemaDims: 0,
};

export type FetchStatus = 'success' | 'inprogress' | 'error' | 'timeout' | 'none';

/** Fetched floor data, checked and compiled once when it arrives. */
export interface FetchedFloors {
  data: FloorData;
  /** The compiled model groups, by group (the lookup never compiles per request). */
  compiled: ReadonlyMap<object, CompiledGroup>;
}

interface Entry {
  floors?: FetchedFloors;
  expiresAt: number;
  /** When the next fetch may start (refresh of good data, or a retry after a failure). */
  nextFetchAt: number;
  inFlight?: Promise<void>;
  lastStatus: FetchStatus;
}

export interface FetcherOptions {
  /** URLs kept at most; the least recently used goes first. */
  maxEntries: number;
  logger: PluginLogger;
  /** Counts fetches by outcome, when the host records metrics. */
  count?: (status: 'success' | 'error' | 'timeout' | 'too-large' | 'invalid') => void;
}

/** Thrown inside the fetch when the body is over the account's size limit. */
class TooLarge extends Error {}

export class FloorsFetcher {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: FetcherOptions) {}

  /** The cached floors for these settings, starting a fetch when none are cached or they are due a refresh. */
  lookup(settings: FetchSettings, now: number): { floors?: FetchedFloors; status: FetchStatus } {
    const key = settings.url;
    let entry = this.entries.get(key);
    if (entry) {
      // Most recently used last: the first key is the one to evict.
      this.entries.delete(key);
      this.entries.set(key, entry);
    } else {
      entry = { expiresAt: 0, nextFetchAt: 0, lastStatus: 'inprogress' };
      this.entries.set(key, entry);
      if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    if (entry.floors && now >= entry.expiresAt) entry.floors = undefined;
    if (!entry.inFlight && now >= entry.nextFetchAt) this.start(entry, settings, now);
    if (entry.floors) return { floors: entry.floors, status: 'success' };
    return { status: entry.inFlight ? 'inprogress' : entry.lastStatus };
  }

  /** Resolves when every fetch under way has ended (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => entry.inFlight));
  }

  private start(entry: Entry, settings: FetchSettings, now: number): void {
    entry.nextFetchAt = now + settings.periodSec * 1000;
    entry.inFlight = this.fetch(settings).then(
      ({ floors, maxAgeSec }) => {
        entry.floors = floors;
        entry.lastStatus = 'success';
        entry.expiresAt = Date.now() + maxAgeSec * 1000;
        this.options.count?.('success');
      },
      (err: unknown) => {
        const kind = err instanceof TooLarge ? 'too-large' : (err as { name?: string }).name === 'TimeoutError' ? 'timeout' : err instanceof InvalidFloors ? 'invalid' : 'error';
        entry.lastStatus = kind === 'timeout' ? 'timeout' : 'error';
        this.options.count?.(kind);
        this.options.logger.warn({ url: settings.url, reason: (err as Error).message }, 'Error while fetching floor data');
      },
    ).finally(() => {
      entry.inFlight = undefined;
    });
  }

  private async fetch(settings: FetchSettings): Promise<{ floors: FetchedFloors; maxAgeSec: number }> {
    const { default: got } = await import('got');
    const maxBytes = settings.maxFileSizeKb * 1024;
    const request = got(settings.url, {
      timeout: { request: settings.timeoutMs },
      retry: { limit: 0 },
      followRedirect: false,
      throwHttpErrors: false,
      responseType: 'buffer',
    });
    // got has no size limit of its own: the download is cancelled as soon as it passes the account's.
    let tooLarge = false;
    request.on('downloadProgress', (progress: { transferred: number; total?: number }) => {
      if (progress.transferred > maxBytes || (progress.total !== undefined && progress.total > maxBytes)) {
        tooLarge = true;
        request.cancel();
      }
    });
    let response;
    try {
      response = await request;
    } catch (err) {
      if (tooLarge) throw new TooLarge('floor file size is greater than MaxFileSize');
      throw err;
    }
    if (response.statusCode !== 200) throw new Error('no response from server');
    if (response.rawBody.length > maxBytes) throw new TooLarge('floor file size is greater than MaxFileSize');
    let json: unknown;
    try {
      json = JSON.parse(response.rawBody.toString('utf8'));
    } catch {
      throw new InvalidFloors('Received invalid price floor json');
    }
    const floors = checkFetched(json, settings);
    // Prebid Server's `max-age` header: how long this file may be used, when longer than the refresh period.
    const header = Number(response.headers['max-age']);
    const maxAgeSec = Number.isInteger(header) && header > settings.periodSec && header <= 2 ** 31 - 1 ? header : settings.maxAgeSec;
    return { floors, maxAgeSec };
  }
}

class InvalidFloors extends Error {}

/** Prebid Server's `validateRules` of a fetched floors file (its `data`), then each group compiled once. */
export function checkFetched(json: unknown, settings: Pick<FetchSettings, 'maxRules' | 'maxSchemaDims'>): FetchedFloors {
  const errors: string[] = [];
  const data = readFloorData(json, 'floors', errors);
  if (!data) throw new InvalidFloors('empty data in floor JSON');
  if (errors.length > 0) throw new InvalidFloors(errors.join('; '));
  if (data.modelgroups.length === 0) throw new InvalidFloors('no model groups found in price floor data');
  if (data.skiprate !== undefined && (data.skiprate < 0 || data.skiprate > 100)) throw new InvalidFloors('skip rate should be greater than or equal to 0 and less than 100');
  if (data.usefetchdatarate !== undefined && (data.usefetchdatarate < 0 || data.usefetchdatarate > 100)) {
    throw new InvalidFloors('usefetchdatarate should be greater than or equal to 0 and less than or equal to 100');
  }
  for (const group of data.modelgroups) {
    const rules = Object.keys(group.values).length;
    if (rules === 0 || rules > settings.maxRules) {
      throw new InvalidFloors('invalid number of floor rules, floor rules should be greater than zero and less than MaxRules specified in account config');
    }
    if (group.modelweight !== undefined && (group.modelweight < 1 || group.modelweight > 100)) throw new InvalidFloors('modelGroup[].modelWeight should be greater than or equal to 1 and less than 100');
    if (group.skiprate !== undefined && (group.skiprate < 0 || group.skiprate > 100)) throw new InvalidFloors('model group skip rate should be greater than or equal to 0 and less than 100');
    if (group.default !== undefined && group.default < 0) throw new InvalidFloors('modelGroup.Default should be greater than 0');
  }
  const schemaErrors: string[] = [];
  if (validModelGroups(data.modelgroups, { maxSchemaDims: settings.maxSchemaDims, maxRules: 0 }, schemaErrors).length !== data.modelgroups.length) {
    throw new InvalidFloors(schemaErrors.join('; '));
  }
  const compiled = new Map<object, CompiledGroup>();
  for (const group of data.modelgroups) compiled.set(group, compileGroup(group, []));
  return { data, compiled };
}
