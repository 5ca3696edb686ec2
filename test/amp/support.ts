import { CountingCacheStore } from '../support/counting-cache-store.js';
import { MemoryFetcher, type StoredDataFetcher } from '../../core/stored/index.js';
import { getJson, replacing, startGavel, type HttpAnswer, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';

export const CACHE_PUBLIC_URL = 'https://cache.gavel.test/cache';

/** A stored AMP request: one banner imp offered to `alpha` (and whatever the test adds). */
export function storedAmpRequest(extra: Record<string, unknown> = {}, impExtra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'amp-stored-1',
    site: { page: 'https://news.example/story', publisher: { id: 'stored-publisher' } },
    imp: [{ id: 'amp-imp', banner: { format: [{ w: 300, h: 250 }, { w: 320, h: 100 }] }, ext: { prebid: { bidder: { alpha: {} } } }, ...impExtra }],
    ...extra,
  };
}

export type AmpAnswer = HttpAnswer;

/** One Gavel with AMP stored requests and a real local OpenRTB bidder behind the `ortb` adapter. */
export class AmpTestServer {
  private constructor(
    readonly gavel: RunningGavel,
    readonly bidder: MockBidder,
  ) {}

  /**
   * `bidders` maps a bidder name to the simulated bidder's query (`price=1.25`, `delayMs=400`, ...). Cache ids count
   * from "0" so tests can name them.
   */
  static async start(options: {
    stored?: Record<string, unknown>;
    fetcher?: StoredDataFetcher;
    bidders?: Record<string, string>;
    config?: Record<string, unknown>;
  }): Promise<AmpTestServer> {
    const bidder = await startMockBidder();
    const bidderConfig: Record<string, unknown> = {};
    for (const [name, query] of Object.entries(options.bidders ?? { alpha: 'price=1.25' })) {
      bidderConfig[name] = { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=${name}&${query}` };
    }
    const gavel = await startGavel(
      { bidders: bidderConfig, cache: { publicUrl: CACHE_PUBLIC_URL }, ...options.config },
      {
        configure: replacing({
          stored: options.fetcher ?? new MemoryFetcher({ requests: options.stored ?? {} }),
          cacheStore: new CountingCacheStore(),
        }),
      },
    );
    return new AmpTestServer(gavel, bidder);
  }

  get(query: string, headers: Record<string, string> = {}): Promise<AmpAnswer> {
    return getJson(`${this.gavel.url}/openrtb2/amp?${query}`, headers);
  }

  /** The body the named bidder received last. */
  lastBidderRequest(name = 'alpha'): any {
    const calls = this.bidder.received.filter((call) => call.url.includes(`name=${name}&`));
    if (calls.length === 0) throw new Error(`bidder ${name} was never called`);
    return calls[calls.length - 1]!.body;
  }

  async close(): Promise<void> {
    await this.gavel.close();
    await this.bidder.close();
  }
}
