import { expect } from 'chai';
import type {
  AllBidsPayload,
  AuctionBid,
  Bid,
  BidRequest,
  HookContext,
  HookResult,
  MediaType,
  ModuleDeps,
} from '../../../core/api/index.js';
import bidCacheModule from '../index.js';
import { vastWrapper } from '../../../core/api/index.js';
import { createCacheBidsHook, DEFAULT_BID_CACHE_CONFIG } from '../hooks/cache-bids.js';

type PutValues = Parameters<ModuleDeps['cachePut']>[0];

const silentLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const DEADLINE = 1_700_000_000_500;
const PUBLIC_URL = { host: 'cache.example.com', path: '/cache' };

/** A cachePut that records its calls and answers `u0`, `u1`, ... in order (or what `answer` says). */
function recordingCache(answer?: (values: PutValues) => Promise<Array<string | undefined>>) {
  const calls: Array<{ values: PutValues; deadline: number }> = [];
  const cachePut: ModuleDeps['cachePut'] = (values, deadline) => {
    calls.push({ values, deadline });
    return answer ? answer(values) : Promise.resolve(values.map((_, index) => `u${index}`));
  };
  return { calls, cachePut };
}

function context(namespace: 'svc' | 'prebid' = 'prebid'): HookContext {
  return { endpoint: 'auction', namespace, deadline: DEADLINE, secure: true, moduleContext: {}, logger: silentLogger };
}

interface BidSpec {
  bidder: string;
  impid?: string;
  price: number;
  type?: MediaType;
  winner?: boolean;
  bidderBest?: boolean;
  bid?: Partial<Bid>;
}

function auctionBid(spec: BidSpec): AuctionBid {
  return {
    bid: { id: `${spec.bidder}-bid`, impid: spec.impid ?? 'imp-1', price: spec.price, ...spec.bid },
    type: spec.type ?? 'banner',
    bidder: spec.bidder,
    adapter: spec.bidder,
    originalPrice: spec.price,
    originalCurrency: 'USD',
    targeting: { hb_pb: spec.price.toFixed(2) },
    winner: spec.winner ?? false,
    bidderBest: spec.bidderBest ?? true,
  };
}

/** One seat per bidder, in the order given. */
function payload(ext: Record<string, unknown>, bids: BidSpec[], imps: BidRequest['imp'] = [{ id: 'imp-1', banner: { w: 300, h: 250 } }]): AllBidsPayload {
  const seats: AllBidsPayload['seats'] = [];
  for (const spec of bids) {
    let seat = seats.find((candidate) => candidate.bidder === spec.bidder);
    if (!seat) {
      seat = { bidder: spec.bidder, adapter: spec.bidder, bids: [], errors: [], responseTimeMs: 10 };
      seats.push(seat);
    }
    seat.bids.push(auctionBid(spec));
  }
  return { request: { id: 'req-1', imp: imps, site: { page: 'https://example.com' }, ext }, seats };
}

const withCache = (cache: Record<string, unknown>, targeting: Record<string, unknown> = {}, namespace = 'prebid') => ({
  [namespace]: { targeting, cache },
});

async function run(
  input: AllBidsPayload,
  deps: Partial<ModuleDeps> & Pick<ModuleDeps, 'cachePut'>,
  ctx: HookContext = context(),
  config = DEFAULT_BID_CACHE_CONFIG,
): Promise<{ result: HookResult<AllBidsPayload> | undefined; output: AllBidsPayload }> {
  const hook = createCacheBidsHook(config, deps);
  const result = await hook(input, ctx);
  const output = structuredClone(input);
  for (const change of result?.changes ?? []) change(output);
  return { result, output };
}

const bidAt = (output: AllBidsPayload, bidder: string, index = 0): AuctionBid =>
  output.seats.find((seat) => seat.bidder === bidder)!.bids[index]!;

describe('gavel.bid-cache: cache-bids hook', () => {
  it('does nothing without targeting, even when caching is asked for', async () => {
    const cache = recordingCache();
    const input = payload({ prebid: { cache: { bids: {} } } }, [{ bidder: 'appnexus', price: 1, winner: true }]);
    const { result } = await run(input, { cachePut: cache.cachePut, cachePublicUrl: PUBLIC_URL });
    expect(result).to.equal(undefined);
    expect(cache.calls).to.have.length(0);
  });

  it('answers synchronously with nothing when targeting asks for no cache and no public cache address exists', () => {
    const cache = recordingCache();
    const hook = createCacheBidsHook(DEFAULT_BID_CACHE_CONFIG, { cachePut: cache.cachePut });
    const input = payload({ prebid: { targeting: {} } }, [{ bidder: 'appnexus', price: 1, winner: true }]);
    expect(hook(input, context())).to.equal(undefined);
    expect(cache.calls).to.have.length(0);
  });

  it('caches the winner and each bidder best in one call and sets hb_cache_id keys and bid.ext cache', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }), [
      { bidder: 'appnexus', price: 2, winner: true },
      { bidder: 'rubicon', price: 1 },
    ]);
    const { output } = await run(input, { cachePut: cache.cachePut, cachePublicUrl: PUBLIC_URL });

    expect(cache.calls).to.have.length(1);
    expect(cache.calls[0]!.deadline).to.equal(DEADLINE);
    expect(cache.calls[0]!.values).to.deep.equal([
      { type: 'json', value: input.seats[0]!.bids[0]!.bid, ttlseconds: 300 },
      { type: 'json', value: input.seats[1]!.bids[0]!.bid, ttlseconds: 300 },
    ]);

    expect(bidAt(output, 'appnexus').targeting).to.deep.equal({
      hb_pb: '2.00',
      hb_cache_id: 'u0',
      hb_cache_id_appnexus: 'u0',
      hb_cache_host: 'cache.example.com',
      hb_cache_host_appnex: 'cache.example.com',
      hb_cache_path: '/cache',
      hb_cache_path_appnex: '/cache',
    });
    expect(bidAt(output, 'rubicon').targeting).to.deep.equal({
      hb_pb: '1.00',
      hb_cache_id_rubicon: 'u1',
      hb_cache_host_rubico: 'cache.example.com',
      hb_cache_path_rubico: '/cache',
    });
    expect(bidAt(output, 'appnexus').bid.ext).to.deep.equal({
      prebid: { cache: { bids: { url: 'https://cache.example.com/cache?uuid=u0', cacheId: 'u0' } } },
    });
  });

  it('never edits the payload it is given; only its changes do', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {}, vastxml: {} }), [
      { bidder: 'appnexus', price: 2, winner: true, type: 'video', bid: { adm: '<VAST/>', ext: { prebid: { meta: { x: 1 } } } } },
    ]);
    const before = structuredClone(input);
    const hook = createCacheBidsHook(DEFAULT_BID_CACHE_CONFIG, { cachePut: cache.cachePut, cachePublicUrl: PUBLIC_URL });
    const result = await hook(input, context());
    expect(input).to.deep.equal(before);
    expect(result?.action).to.equal('update');
  });

  it('keeps what bid.ext already held beside the cache entry', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }), [
      { bidder: 'appnexus', price: 2, winner: true, bid: { ext: { prebid: { meta: { adaptercode: 'appnexus' } }, other: 1 } } },
    ]);
    const { output } = await run(input, { cachePut: cache.cachePut });
    expect(bidAt(output, 'appnexus').bid.ext).to.deep.equal({
      prebid: { meta: { adaptercode: 'appnexus' }, cache: { bids: { cacheId: 'u0' } } },
      other: 1,
    });
  });

  it('reads and writes the svc namespace when the request used it', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }, {}, 'svc'), [{ bidder: 'appnexus', price: 2, winner: true }]);
    const { output } = await run(input, { cachePut: cache.cachePut }, context('svc'));
    expect(bidAt(output, 'appnexus').targeting.hb_cache_id).to.equal('u0');
    expect(bidAt(output, 'appnexus').bid.ext).to.deep.equal({ svc: { cache: { bids: { cacheId: 'u0' } } } });
  });

  it('cuts keys with long bidder names to 20 characters', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {}, vastxml: {} }), [
      { bidder: 'averyveryverylongbidder', price: 2, winner: true, type: 'video', bid: { adm: '<VAST/>' } },
    ]);
    const { output } = await run(input, { cachePut: cache.cachePut, cachePublicUrl: PUBLIC_URL });
    const keys = Object.keys(bidAt(output, 'averyveryverylongbidder').targeting);
    expect(keys).to.include.members(['hb_cache_id_averyver', 'hb_uuid_averyveryver', 'hb_cache_host_averyv', 'hb_cache_path_averyv']);
    for (const key of keys) expect(key.length).to.be.at.most(20);
  });

  it('sets no un-suffixed keys when includewinners is false', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }, { includewinners: false }), [{ bidder: 'appnexus', price: 2, winner: true }]);
    const { output } = await run(input, { cachePut: cache.cachePut, cachePublicUrl: PUBLIC_URL });
    const { targeting } = bidAt(output, 'appnexus');
    expect(targeting.hb_cache_id_appnexus).to.equal('u0');
    expect(targeting).to.not.have.any.keys('hb_cache_id', 'hb_cache_host', 'hb_cache_path');
  });

  it('caches only the winners when includebidderkeys is false', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }, { includebidderkeys: false }), [
      { bidder: 'appnexus', price: 2, winner: true },
      { bidder: 'rubicon', price: 1 },
    ]);
    const { output } = await run(input, { cachePut: cache.cachePut });
    expect(cache.calls[0]!.values).to.have.length(1);
    expect(bidAt(output, 'appnexus').targeting).to.deep.equal({ hb_pb: '2.00', hb_cache_id: 'u0' });
    expect(bidAt(output, 'rubicon').targeting).to.deep.equal({ hb_pb: '1.00' });
  });

  it('leaves bids that are neither a winner nor a bidder best out of the cache', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }), [
      { bidder: 'appnexus', price: 2, winner: true },
      { bidder: 'appnexus', price: 1, bidderBest: false },
    ]);
    const { output } = await run(input, { cachePut: cache.cachePut });
    expect(cache.calls[0]!.values).to.have.length(1);
    expect(bidAt(output, 'appnexus', 1).targeting).to.deep.equal({ hb_pb: '1.00' });
  });

  it('caches each imp winner on its own', async () => {
    const cache = recordingCache();
    const input = payload(
      withCache({ bids: {} }),
      [
        { bidder: 'appnexus', impid: 'imp-1', price: 2, winner: true },
        { bidder: 'appnexus', impid: 'imp-2', price: 3, winner: true },
      ],
      [{ id: 'imp-1', banner: { w: 300, h: 250 } }, { id: 'imp-2', banner: { w: 728, h: 90 } }],
    );
    const { output } = await run(input, { cachePut: cache.cachePut });
    expect(bidAt(output, 'appnexus', 0).targeting.hb_cache_id).to.equal('u0');
    expect(bidAt(output, 'appnexus', 1).targeting.hb_cache_id).to.equal('u1');
  });

  it('finds bids by position, so seats that share a bid id each get their own uuid', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }), [
      { bidder: 'appnexus', price: 2, winner: true, bid: { id: 'same-id' } },
      { bidder: 'districtm', price: 1, bid: { id: 'same-id' } },
    ]);
    const { output } = await run(input, { cachePut: cache.cachePut });
    expect(bidAt(output, 'appnexus').targeting.hb_cache_id_appnexus).to.equal('u0');
    expect(bidAt(output, 'districtm').targeting.hb_cache_id_district).to.equal('u1');
  });

  describe('vastxml', () => {
    it('caches the adm of video bids under hb_uuid, beside hb_cache_id', async () => {
      const cache = recordingCache();
      const vast = '<VAST version="3.0"><Ad/></VAST>';
      const input = payload(
        withCache({ bids: {}, vastxml: {} }),
        [{ bidder: 'appnexus', price: 2, winner: true, type: 'video', bid: { adm: vast } }],
        [{ id: 'imp-1', video: { mimes: ['video/mp4'] } }],
      );
      const { output } = await run(input, { cachePut: cache.cachePut, cachePublicUrl: PUBLIC_URL });
      expect(cache.calls[0]!.values).to.deep.equal([
        { type: 'json', value: input.seats[0]!.bids[0]!.bid, ttlseconds: 1800 },
        { type: 'xml', value: vast, ttlseconds: 1800 },
      ]);
      const bid = bidAt(output, 'appnexus');
      expect(bid.targeting).to.include({ hb_cache_id: 'u0', hb_uuid: 'u1', hb_cache_id_appnexus: 'u0', hb_uuid_appnexus: 'u1' });
      expect(bid.bid.ext).to.deep.equal({
        prebid: {
          cache: {
            bids: { url: 'https://cache.example.com/cache?uuid=u0', cacheId: 'u0' },
            vastXml: { url: 'https://cache.example.com/cache?uuid=u1', cacheId: 'u1' },
          },
        },
      });
    });

    it('wraps the nurl in a VAST 3.0 wrapper when the bid has no adm', async () => {
      const cache = recordingCache();
      const nurl = 'https://dsp.example.com/win?id=1&p=${AUCTION_PRICE}';
      const input = payload(withCache({ vastxml: {} }), [{ bidder: 'appnexus', price: 2, winner: true, type: 'video', bid: { nurl } }]);
      await run(input, { cachePut: cache.cachePut });
      const [put] = cache.calls[0]!.values;
      expect(put!.type).to.equal('xml');
      expect(put!.value).to.equal(vastWrapper(nurl));
      expect(put!.value).to.match(/^<VAST version="3.0">.*<Wrapper>.*<VASTAdTagURI><!\[CDATA\[https:\/\/dsp\.example\.com\/win\?id=1&p=\$\{AUCTION_PRICE\}\]\]><\/VASTAdTagURI>/);
    });

    it('keeps a "]]>" in the nurl from closing the CDATA section', () => {
      const wrapper = vastWrapper('https://x.example/?a=]]>b');
      expect(wrapper).to.include('<![CDATA[https://x.example/?a=]]]]><![CDATA[>b]]>');
    });

    it('caches no VAST for banner bids or video bids with neither adm nor nurl', async () => {
      const cache = recordingCache();
      const input = payload(withCache({ vastxml: {} }), [
        { bidder: 'appnexus', price: 2, winner: true, type: 'banner', bid: { adm: '<div/>' } },
        { bidder: 'rubicon', price: 1, type: 'video' },
      ]);
      const { result } = await run(input, { cachePut: cache.cachePut });
      expect(cache.calls).to.have.length(0);
      expect(result).to.equal(undefined);
    });
  });

  describe('TTL', () => {
    const ttlOf = async (impExp: number | undefined, bidExp: number | undefined, type: MediaType = 'banner', config = DEFAULT_BID_CACHE_CONFIG) => {
      const cache = recordingCache();
      const imp = { id: 'imp-1', banner: { w: 300, h: 250 }, ...(impExp === undefined ? {} : { exp: impExp }) };
      const input = payload(withCache({ bids: {} }), [{ bidder: 'appnexus', price: 2, winner: true, type, bid: bidExp === undefined ? {} : { exp: bidExp } }], [imp]);
      await run(input, { cachePut: cache.cachePut }, context(), config);
      return cache.calls[0]!.values[0]!.ttlseconds;
    };

    it('takes the smaller of imp.exp and bid.exp', async () => {
      expect(await ttlOf(100, 50)).to.equal(50);
      expect(await ttlOf(40, 50)).to.equal(40);
    });

    it('ignores an exp that is not positive', async () => {
      expect(await ttlOf(0, 70)).to.equal(70);
      expect(await ttlOf(90, -1)).to.equal(90);
    });

    it('falls back to the default of the media type', async () => {
      expect(await ttlOf(undefined, undefined, 'banner')).to.equal(300);
      expect(await ttlOf(undefined, undefined, 'video')).to.equal(1800);
      expect(await ttlOf(undefined, undefined, 'native')).to.equal(300);
    });

    it('names no TTL when the default is 0, leaving it to the cache', async () => {
      const config = { defaultTtlSeconds: { ...DEFAULT_BID_CACHE_CONFIG.defaultTtlSeconds, banner: 0 } };
      expect(await ttlOf(undefined, undefined, 'banner', config)).to.equal(undefined);
    });
  });

  describe('when the cache fails', () => {
    it('leaves the cache keys out for values without a uuid and keeps the others', async () => {
      const cache = recordingCache(async (values) => values.map((_, index) => (index === 0 ? undefined : `u${index}`)));
      const input = payload(withCache({ bids: {} }), [
        { bidder: 'appnexus', price: 2, winner: true },
        { bidder: 'rubicon', price: 1 },
      ]);
      const { output, result } = await run(input, { cachePut: cache.cachePut });
      expect(bidAt(output, 'appnexus').targeting).to.deep.equal({ hb_pb: '2.00' });
      expect(bidAt(output, 'appnexus').bid.ext).to.equal(undefined);
      expect(bidAt(output, 'rubicon').targeting.hb_cache_id_rubicon).to.equal('u1');
      expect(result?.messages).to.deep.equal(['cached 1 of 2 values']);
    });

    it('does not throw when cachePut rejects, and still sets the cache address', async () => {
      const cache = recordingCache(() => Promise.reject(new Error('unreachable')));
      const input = payload(withCache({ bids: {} }), [{ bidder: 'appnexus', price: 2, winner: true }]);
      const { output } = await run(input, { cachePut: cache.cachePut, cachePublicUrl: PUBLIC_URL });
      expect(bidAt(output, 'appnexus').targeting).to.deep.equal({
        hb_pb: '2.00',
        hb_cache_host: 'cache.example.com',
        hb_cache_host_appnex: 'cache.example.com',
        hb_cache_path: '/cache',
        hb_cache_path_appnex: '/cache',
      });
    });

    it('does not throw when cachePut itself throws', async () => {
      const throwing: ModuleDeps['cachePut'] = () => {
        throw new Error('not wired');
      };
      const input = payload(withCache({ bids: {} }), [{ bidder: 'appnexus', price: 2, winner: true }]);
      const { result } = await run(input, { cachePut: throwing });
      expect(result).to.equal(undefined);
    });

    it('sets no change at all when nothing was cached and there is no public address', async () => {
      const cache = recordingCache(async (values) => values.map(() => undefined));
      const input = payload(withCache({ bids: {} }), [{ bidder: 'appnexus', price: 2, winner: true }]);
      const { result } = await run(input, { cachePut: cache.cachePut });
      expect(result).to.equal(undefined);
    });
  });

  it('sets hb_cache_host and hb_cache_path on targeted bids when targeting is on without caching (as Prebid Server does)', async () => {
    const cache = recordingCache();
    const input = payload({ prebid: { targeting: {} } }, [{ bidder: 'appnexus', price: 1, winner: true }]);
    const { output } = await run(input, { cachePut: cache.cachePut, cachePublicUrl: { host: 'www.pbcserver.com', path: '/pbcache/endpoint' } });
    expect(cache.calls).to.have.length(0);
    expect(bidAt(output, 'appnexus').targeting).to.deep.equal({
      hb_pb: '1.00',
      hb_cache_host: 'www.pbcserver.com',
      hb_cache_host_appnex: 'www.pbcserver.com',
      hb_cache_path: '/pbcache/endpoint',
      hb_cache_path_appnex: '/pbcache/endpoint',
    });
  });

  it('builds fetch URLs with the scheme the host passes beside host and path', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }), [{ bidder: 'appnexus', price: 2, winner: true }]);
    const publicUrl = { host: 'localhost:8000', path: '/cache', scheme: 'http' };
    const { output } = await run(input, { cachePut: cache.cachePut, cachePublicUrl: publicUrl });
    expect(bidAt(output, 'appnexus').bid.ext).to.deep.equal({
      prebid: { cache: { bids: { url: 'http://localhost:8000/cache?uuid=u0', cacheId: 'u0' } } },
    });
  });

  describe('module manifest', () => {
    it('registers one hook at cache-bids and applies the configured default TTLs', async () => {
      expect(bidCacheModule.code).to.equal('gavel.bid-cache');
      expect(bidCacheModule.stages).to.deep.equal(['cache-bids']);
      const cache = recordingCache();
      const deps: ModuleDeps = {
        logger: silentLogger,
        bidders: new Map(),
        validateBidderParams: () => undefined,
        cachePut: cache.cachePut,
      };
      const hooks = bidCacheModule.create({ defaultTtlSeconds: { banner: 42 } }, deps)['cache-bids']!;
      const [hook] = Object.values(hooks);
      await hook!(payload(withCache({ bids: {} }), [{ bidder: 'appnexus', price: 2, winner: true }]), context());
      expect(cache.calls[0]!.values[0]!.ttlseconds).to.equal(42);
    });
  });
});
