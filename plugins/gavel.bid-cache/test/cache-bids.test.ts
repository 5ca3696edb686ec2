import { expect } from 'chai';
import type { AllBidsPayload, AuctionBid, Bid, BidRequest, MediaType, ModuleDeps } from '../../../core/api/index.js';
import bidCacheModule from '../index.js';
import { vastWrapper } from '../../../core/api/index.js';
import { testContext, type TestContext } from '../../../core/api/testing.js';
import { createBidCache, DEFAULT_BID_CACHE_CONFIG } from '../bid-cache.js';

type PutValues = Parameters<ModuleDeps['cachePut']>[0];

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

function context(namespace: 'svc' | 'prebid' = 'prebid'): TestContext {
  return testContext({ namespace, deadline: DEADLINE, secure: true });
}

interface BidSpec {
  bidder: string;
  impid?: string;
  price: number;
  type?: MediaType;
  winner?: boolean;
  bidderBest?: boolean;
  targetBidderCode?: string;
  events?: AuctionBid['events'];
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
    ...(spec.targetBidderCode && { targetBidderCode: spec.targetBidderCode }),
    ...(spec.events && { events: spec.events }),
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
  ctx: TestContext = context(),
  config = DEFAULT_BID_CACHE_CONFIG,
): Promise<{ result: 'update' | undefined; output: AllBidsPayload }> {
  const output = structuredClone(input);
  await createBidCache(config, deps).cache(output, ctx);
  return { result: JSON.stringify(output) === JSON.stringify(input) ? undefined : 'update', output };
}

const bidAt = (output: AllBidsPayload, bidder: string, index = 0): AuctionBid =>
  output.seats.find((seat) => seat.bidder === bidder)!.bids[index]!;

/** The cache ids a bid was given: `bids` (its JSON) and `vast`. */
const idsOf = (output: AllBidsPayload, bidder: string, index = 0): { bids?: string; vast?: string } => {
  const cache = bidAt(output, bidder, index).cache;
  return { ...(cache?.bids && { bids: cache.bids.cacheId }), ...(cache?.vastXml && { vast: cache.vastXml.cacheId }) };
};

describe('gavel.bid-cache: the bid-caching service', () => {
  it('does nothing without targeting, even when caching is asked for', async () => {
    const cache = recordingCache();
    const input = payload({ prebid: { cache: { bids: {} } } }, [{ bidder: 'appnexus', price: 1, winner: true }]);
    const { result } = await run(input, { cachePut: cache.cachePut, cachePublicUrl: PUBLIC_URL });
    expect(result).to.equal(undefined);
    expect(cache.calls).to.have.length(0);
  });

  it('answers synchronously with nothing when targeting asks for no cache', () => {
    const cache = recordingCache();
    const service = createBidCache(DEFAULT_BID_CACHE_CONFIG, { cachePut: cache.cachePut, cachePublicUrl: PUBLIC_URL });
    const input = payload({ prebid: { targeting: {} } }, [{ bidder: 'appnexus', price: 1, winner: true }]);
    expect(service.cache(input, context())).to.equal(undefined);
    expect(cache.calls).to.have.length(0);
  });

  it("puts an id in the cache URL as encodeURIComponent writes it, whatever a cache answers", async () => {
    const ids = ['00000021-5920-4217-b65a-e74d89f750d5', 'A.b_c~D', 'a b/c?d=é&e#f%'];
    const cache = recordingCache(async () => ids);
    const input = payload(withCache({ bids: {} }), ids.map((_, index) => ({ bidder: `bidder${index}`, price: 3 - index, winner: index === 0 })));
    const { output } = await run(input, { cachePut: cache.cachePut, cachePublicUrl: PUBLIC_URL });
    ids.forEach((id, index) => {
      expect(bidAt(output, `bidder${index}`).cache!.bids).to.deep.equal({ url: `https://cache.example.com/cache?uuid=${encodeURIComponent(id)}`, cacheId: id });
    });
    expect(bidAt(output, 'bidder2').cache!.bids!.url).to.equal('https://cache.example.com/cache?uuid=a%20b%2Fc%3Fd%3D%C3%A9%26e%23f%25');
  });

  it('caches the winner and each bidder best in one call and records where each went, setting no key itself', async () => {
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
    expect(bidAt(output, 'appnexus').cache).to.deep.equal({ bids: { url: 'https://cache.example.com/cache?uuid=u0', cacheId: 'u0' } });
    expect(idsOf(output, 'rubicon')).to.deep.equal({ bids: 'u1' });
    // Targeting keys the cache ids once bids are cached: this service leaves the keys and the bid's ext alone.
    expect(bidAt(output, 'appnexus').targeting).to.deep.equal({ hb_pb: '2.00' });
    expect(bidAt(output, 'appnexus').bid.ext).to.equal(undefined);
  });

  it('records both the JSON and the VAST of a video bid', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {}, vastxml: {} }), [{ bidder: 'appnexus', price: 2, winner: true, type: 'video', bid: { adm: '<VAST/>' } }]);
    const { output } = await run(input, { cachePut: cache.cachePut, cachePublicUrl: PUBLIC_URL });
    expect(bidAt(output, 'appnexus').cache).to.deep.equal({
      bids: { cacheId: 'u0', url: 'https://cache.example.com/cache?uuid=u0' },
      vastXml: { cacheId: 'u1', url: 'https://cache.example.com/cache?uuid=u1' },
    });
  });

  describe('cacheVast (what the video endpoint asks for its pods)', () => {
    it('caches the VAST of the bids that have none cached yet, in one call, and records it on each bid', async () => {
      const cache = recordingCache();
      const service = createBidCache(DEFAULT_BID_CACHE_CONFIG, { cachePut: cache.cachePut });
      const input = payload({}, [
        { bidder: 'appnexus', price: 2, type: 'video', bid: { adm: '<VAST a/>' } },
        { bidder: 'rubicon', price: 1, type: 'video', bid: { nurl: 'https://win.example/n' } },
      ]);
      const bids = input.seats.flatMap((seat) => seat.bids);
      bids[0]!.cache = { vastXml: { cacheId: 'already' } };
      await service.cacheVast(bids, input.request, context());
      expect(cache.calls).to.have.length(1);
      expect(cache.calls[0]!.values).to.deep.equal([{ type: 'xml', value: vastWrapper('https://win.example/n'), ttlseconds: 1800 }]);
      expect(bids.map((bid) => bid.cache?.vastXml?.cacheId)).to.deep.equal(['already', 'u0']);
    });

    it('leaves a bid without a cached VAST when the put fails', async () => {
      const cache = recordingCache(async (values) => values.map(() => undefined));
      const input = payload({}, [{ bidder: 'appnexus', price: 2, type: 'video', bid: { adm: '<VAST/>' } }]);
      const bids = input.seats[0]!.bids;
      await createBidCache(DEFAULT_BID_CACHE_CONFIG, { cachePut: cache.cachePut }).cacheVast(bids, input.request, context());
      expect(bids[0]!.cache).to.equal(undefined);
    });
  });

  it('reads the svc namespace when the request used it', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }, {}, 'svc'), [{ bidder: 'appnexus', price: 2, winner: true }]);
    const { output } = await run(input, { cachePut: cache.cachePut }, context('svc'));
    expect(idsOf(output, 'appnexus')).to.deep.equal({ bids: 'u0' });
  });

  it('caches the winner even when includewinners is false only if it gets bidder keys', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }, { includewinners: false }), [{ bidder: 'appnexus', price: 2, winner: true }]);
    const { output } = await run(input, { cachePut: cache.cachePut });
    expect(idsOf(output, 'appnexus')).to.deep.equal({ bids: 'u0' });
  });

  const winnerOnly = [
    { name: 'when includebidderkeys is false', cache: { bids: {} }, targeting: { includebidderkeys: false } },
    { name: 'with cache.winningonly', cache: { bids: {}, winningonly: true }, targeting: {} },
  ];
  for (const setting of winnerOnly) {
    it(`caches only each imp winner ${setting.name}`, async () => {
      const twoBids = () => [
        { bidder: 'appnexus', price: 2, winner: true },
        { bidder: 'rubicon', price: 1 },
      ];
      const cache = recordingCache();
      const { output } = await run(payload(withCache(setting.cache, setting.targeting), twoBids()), { cachePut: cache.cachePut });
      expect(cache.calls[0]!.values).to.have.length(1);
      expect(idsOf(output, 'appnexus')).to.deep.equal({ bids: 'u0' });
      expect(idsOf(output, 'rubicon')).to.deep.equal({});
      // Without it, both are cached: the same request otherwise.
      const all = await run(payload(withCache({ bids: {} }), twoBids()), { cachePut: recordingCache().cachePut });
      expect(idsOf(all.output, 'rubicon')).to.deep.equal({ bids: 'u1' });
    });
  }

  it('with bidder keys off, caches no deal bid but the winner, alwaysincludedeals or not, as Prebid Server\'s doCache', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }, { includebidderkeys: false, alwaysincludedeals: true }), [
      { bidder: 'appnexus', price: 2, winner: true },
      { bidder: 'rubicon', price: 1, bid: { dealid: 'deal-1' } },
      { bidder: 'openx', price: 1.5 },
    ]);
    const { output } = await run(input, { cachePut: cache.cachePut });
    expect(cache.calls[0]!.values).to.have.length(1);
    expect(idsOf(output, 'appnexus')).to.deep.equal({ bids: 'u0' });
    expect(idsOf(output, 'rubicon')).to.deep.equal({});
    expect(idsOf(output, 'openx')).to.deep.equal({});
  });

  it("caches every bid of a bidder with bidder keys on, its multibid extra keyed bids and the bids targeting does not key", async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }), [
      { bidder: 'appnexus', price: 2, winner: true, targetBidderCode: 'appnexus' },
      { bidder: 'appnexus', price: 1.5, bidderBest: false, targetBidderCode: 'apn2' },
      { bidder: 'appnexus', price: 1, bidderBest: false },
    ]);
    const { output } = await run(input, { cachePut: cache.cachePut });
    expect(cache.calls[0]!.values).to.have.length(3);
    expect([0, 1, 2].map((i) => idsOf(output, 'appnexus', i))).to.deep.equal([{ bids: 'u0' }, { bids: 'u1' }, { bids: 'u2' }]);
  });

  it('caches the VAST of every video bid with vastxml asked, the losing ones too (Prebid.js needs each one’s vastUrl)', async () => {
    const cache = recordingCache();
    const video = { type: 'video' as const, bid: { adm: '<VAST version="3.0"></VAST>' } };
    const input = payload(
      withCache({ vastxml: {} }),
      [
        { bidder: 'appnexus', price: 2, winner: true, ...video },
        { bidder: 'appnexus', price: 1.5, bidderBest: false, ...video },
        { bidder: 'rubicon', price: 1, ...video },
      ],
      [{ id: 'imp-1', video: { mimes: ['video/mp4'], w: 640, h: 480 } }],
    );
    const { output } = await run(input, { cachePut: cache.cachePut });
    expect(cache.calls[0]!.values.map((value) => value.type)).to.deep.equal(['xml', 'xml', 'xml']);
    expect([idsOf(output, 'appnexus', 0), idsOf(output, 'appnexus', 1), idsOf(output, 'rubicon')]).to.deep.equal([{ vast: 'u0' }, { vast: 'u1' }, { vast: 'u2' }]);
  });

  it('with bidder keys off, still caches the VAST (only) of every video bid when vastxml is asked, unless winningonly', async () => {
    const video = { type: 'video' as const, bid: { adm: '<VAST version="3.0"></VAST>' } };
    const bids = () => [
      { bidder: 'appnexus', price: 2, winner: true, ...video },
      { bidder: 'rubicon', price: 1, ...video },
      { bidder: 'openx', price: 0.5 },
    ];
    const imps = [{ id: 'imp-1', video: { mimes: ['video/mp4'] } }];
    const cache = recordingCache();
    const { output } = await run(payload(withCache({ bids: {}, vastxml: {} }, { includebidderkeys: false }), bids(), imps), { cachePut: cache.cachePut });
    expect(cache.calls[0]!.values.map((value) => value.type)).to.deep.equal(['json', 'xml', 'xml']);
    expect([idsOf(output, 'appnexus'), idsOf(output, 'rubicon'), idsOf(output, 'openx')]).to.deep.equal([{ bids: 'u0', vast: 'u1' }, { vast: 'u2' }, {}]);
    const winningOnly = recordingCache();
    const only = await run(payload(withCache({ vastxml: {}, winningonly: true }, { includebidderkeys: false }), bids(), imps), { cachePut: winningOnly.cachePut });
    expect(idsOf(only.output, 'rubicon')).to.deep.equal({});
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
    expect(idsOf(output, 'appnexus', 0)).to.deep.equal({ bids: 'u0' });
    expect(idsOf(output, 'appnexus', 1)).to.deep.equal({ bids: 'u1' });
  });

  it('finds bids by position, so seats that share a bid id each get their own uuid', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }), [
      { bidder: 'appnexus', price: 2, winner: true, bid: { id: 'same-id' } },
      { bidder: 'districtm', price: 1, bid: { id: 'same-id' } },
    ]);
    const { output } = await run(input, { cachePut: cache.cachePut });
    expect(idsOf(output, 'appnexus')).to.deep.equal({ bids: 'u0' });
    expect(idsOf(output, 'districtm')).to.deep.equal({ bids: 'u1' });
  });

  it('caches the win URL (wurl) with a bid that has event tracking, and not with a video bid', async () => {
    const cache = recordingCache();
    const events = { win: 'https://gavel.example/event?t=win&b=b1&a=acct', imp: 'https://gavel.example/event?t=imp&b=b1&a=acct' };
    const input = payload(withCache({ bids: {} }), [
      { bidder: 'appnexus', price: 2, winner: true, events },
      { bidder: 'rubicon', price: 1, type: 'video', events, bid: { adm: '<VAST/>' } },
    ]);
    await run(input, { cachePut: cache.cachePut });
    expect(cache.calls[0]!.values[0]!.value).to.deep.equal({ ...input.seats[0]!.bids[0]!.bid, wurl: events.win });
    expect(cache.calls[0]!.values[1]!.value).to.deep.equal(input.seats[1]!.bids[0]!.bid);
  });

  describe('returnCreative', () => {
    const bids: BidSpec[] = [
      { bidder: 'appnexus', price: 2, winner: true, bid: { adm: '<div>a</div>' } },
      { bidder: 'rubicon', price: 1, bidderBest: false, bid: { adm: '<div>r</div>' } },
    ];

    it('with returnCreative false, every bid of the answer loses its markup once cached (the cached JSON keeps it)', async () => {
      const cache = recordingCache();
      const { output } = await run(payload(withCache({ bids: { returnCreative: false } }), bids), { cachePut: cache.cachePut });
      expect(cache.calls[0]!.values[0]!.value).to.have.property('adm', '<div>a</div>');
      expect(output.seats.flatMap((seat) => seat.bids).map((bid) => bid.bid.adm)).to.deep.equal([undefined, undefined]);
    });

    it('keeps the markup by default, and when either kind asks for it', async () => {
      for (const cacheOptions of [{ bids: {} }, { bids: { returnCreative: false }, vastxml: { returnCreative: true } }]) {
        const { output } = await run(payload(withCache(cacheOptions), bids), { cachePut: recordingCache().cachePut });
        expect(output.seats.flatMap((seat) => seat.bids).map((bid) => bid.bid.adm)).to.deep.equal(['<div>a</div>', '<div>r</div>']);
      }
    });
  });

  describe('vastxml', () => {
    it('caches the adm of video bids beside their JSON', async () => {
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
      expect(idsOf(output, 'appnexus')).to.deep.equal({ bids: 'u0', vast: 'u1' });
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

    it('caches no VAST for banner bids; a video bid with neither adm nor nurl gets an empty wrapper, as Prebid Server caches it', async () => {
      const cache = recordingCache();
      const input = payload(withCache({ vastxml: {} }), [
        { bidder: 'appnexus', price: 2, winner: true, type: 'banner', bid: { adm: '<div/>' } },
        { bidder: 'rubicon', price: 1, type: 'video' },
      ]);
      const { output } = await run(input, { cachePut: cache.cachePut });
      expect(cache.calls[0]!.values.map((value) => value.value)).to.deep.equal([vastWrapper('')]);
      expect(idsOf(output, 'rubicon')).to.deep.equal({ vast: 'u0' });
      expect(idsOf(output, 'appnexus')).to.deep.equal({});
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
      const { output } = await run(input, { cachePut: cache.cachePut });
      expect(idsOf(output, 'appnexus')).to.deep.equal({});
      expect(idsOf(output, 'rubicon')).to.deep.equal({ bids: 'u1' });
    });

    it('does not throw when cachePut rejects', async () => {
      const cache = recordingCache(() => Promise.reject(new Error('unreachable')));
      const input = payload(withCache({ bids: {} }), [{ bidder: 'appnexus', price: 2, winner: true }]);
      const { result } = await run(input, { cachePut: cache.cachePut, cachePublicUrl: PUBLIC_URL });
      expect(result).to.equal(undefined);
    });

    it('does not throw when cachePut itself throws', async () => {
      const throwing: ModuleDeps['cachePut'] = () => {
        throw new Error('not wired');
      };
      const input = payload(withCache({ bids: {} }), [{ bidder: 'appnexus', price: 2, winner: true }]);
      const { result } = await run(input, { cachePut: throwing });
      expect(result).to.equal(undefined);
    });

    it('sets no change at all when nothing was cached', async () => {
      const cache = recordingCache(async (values) => values.map(() => undefined));
      const input = payload(withCache({ bids: {} }), [{ bidder: 'appnexus', price: 2, winner: true }]);
      const { result } = await run(input, { cachePut: cache.cachePut });
      expect(result).to.equal(undefined);
    });
  });

  it('builds fetch URLs with the scheme the host passes beside host and path', async () => {
    const cache = recordingCache();
    const input = payload(withCache({ bids: {} }), [{ bidder: 'appnexus', price: 2, winner: true }]);
    const publicUrl = { host: 'localhost:8000', path: '/cache', scheme: 'http' };
    const { output } = await run(input, { cachePut: cache.cachePut, cachePublicUrl: publicUrl });
    expect(bidAt(output, 'appnexus').cache).to.deep.equal({ bids: { url: 'http://localhost:8000/cache?uuid=u0', cacheId: 'u0' } });
  });

  describe('module manifest', () => {
    it('provides the bid-caching service and applies the configured default TTLs', async () => {
      expect(bidCacheModule.code).to.equal('gavel.bid-cache');
      expect(Object.keys(bidCacheModule.provides ?? {})).to.deep.equal(['bid-caching']);
      const cache = recordingCache();
      const deps: ModuleDeps = {
        logger: testContext().logger,
        bidders: new Map(),
        validateBidderParams: () => undefined,
        cachePut: cache.cachePut,
      };
      const service = bidCacheModule.provides!['bid-caching']!({ defaultTtlSeconds: { banner: 42 } }, deps);
      await service.cache(payload(withCache({ bids: {} }), [{ bidder: 'appnexus', price: 2, winner: true }]), context());
      expect(cache.calls[0]!.values[0]!.ttlseconds).to.equal(42);
    });
  });
});
