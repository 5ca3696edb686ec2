import type { PluginLogger } from '../api/index.js';
import { loadGot } from '../outbound/got.js';
import { parseVendorList, type VendorLists } from './vendor-lists.js';

/** Prebid Server waits this long before asking again for a list it failed to fetch. */
const RETRY_AFTER_MS = 10 * 60 * 1000;

export interface VendorListFetchSettings {
  /** `privacy.gdpr.vendorListUrl`: `{{specVersion}}` and `{{version}}` are replaced. */
  urlTemplate: string;
  timeoutMs: number;
}

/**
 * Fetches the Global Vendor Lists the host does not ship, as TC strings name them (Prebid Server's
 * vendorlist-fetching.go, without blocking an auction): a string naming a list not loaded is decided without it
 * (no consent-based permission) and the list is fetched in the background, once at a time per version, and not
 * asked again for ten minutes after a failure. A fetched list is kept for good: a list version never changes.
 */
export class VendorListFetcher {
  private readonly pending = new Map<string, Promise<void>>();
  private readonly failedAt = new Map<string, number>();

  constructor(
    private readonly lists: VendorLists,
    private readonly settings: VendorListFetchSettings,
    private readonly logger: PluginLogger,
    private readonly now: () => number = Date.now,
  ) {}

  /** The URL of one list. */
  urlOf(specVersion: number, version: number): string {
    return this.settings.urlTemplate.replaceAll('{{specVersion}}', String(specVersion)).replaceAll('{{version}}', String(version));
  }

  /** Asks for a list not loaded; resolves when the fetch (if one was started) ends. Never rejects. */
  request(specVersion: number, version: number): Promise<void> {
    const key = `${specVersion}:${version}`;
    const running = this.pending.get(key);
    if (running) return running;
    const failed = this.failedAt.get(key);
    if (failed !== undefined && this.now() - failed < RETRY_AFTER_MS) return Promise.resolve();
    const fetching = this.fetch(specVersion, version, key).finally(() => this.pending.delete(key));
    this.pending.set(key, fetching);
    return fetching;
  }

  private async fetch(specVersion: number, version: number, key: string): Promise<void> {
    const url = this.urlOf(specVersion, version);
    try {
      const got = await loadGot();
      const json = await got(url, { timeout: { request: this.settings.timeoutMs }, retry: { limit: 0 } }).json();
      const list = parseVendorList(json, url);
      if (list.version !== version) throw new Error(`${url} is vendor list version ${list.version}, not ${version}`);
      this.lists.add({ ...list, specVersion });
      this.failedAt.delete(key);
    } catch (err) {
      this.failedAt.set(key, this.now());
      this.logger.warn({ err, url }, 'GDPR vendor list fetch failed: consent strings naming it get no consent-based permission until it loads');
    }
  }
}
