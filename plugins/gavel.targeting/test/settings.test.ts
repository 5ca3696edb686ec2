import { expect } from 'chai';
import type { AuctionBid, AuctionResult, Bid, BidRequest, MediaType, ModuleDeps } from '../../../core/api/index.js';
import { testContext, type TestContext } from '../../../core/api/testing.js';
import { fitDuration } from '../categories.js';
import targetingModule from '../index.js';

const MAPPINGS: Record<string, ReadonlyMap<string, { id: string }>> = {
  freewheel: new Map([['IAB17', { id: 'sports' }], ['IAB1-5', { id: 'screen' }], ['IAB1-7', { id: 'screen' }]]),
  'freewheel/pub-own': new Map([['IAB17', { id: 'own-sports' }]]),
};

function service(deps: Partial<ModuleDeps> = {}) {
  return targetingModule.provides!.targeting!({}, {
    logger: testContext().logger,
    bidders: new Map(),
    validateBidderParams: () => undefined,
    cachePut: async (values) => values.map(() => undefined),
    categoryMapping: (adServer, publisher) => (publisher && MAPPINGS[`${adServer}/${publisher}`]) || MAPPINGS[adServer],
    ...deps,
  });
}

interface Spec {
  bidder: string;
  price: number;
  impid?: string;
  type?: MediaType;
  winner?: boolean;
  bidderBest?: boolean;
  targetBidderCode?: string;
  duration?: number;
  bid?: Partial<Bid>;
  cache?: AuctionBid['cache'];
  namedType?: MediaType;
}

function auction(targeting: unknown, specs: Spec[], extra: Partial<BidRequest> = {}): AuctionResult {
  const seats = new Map<string, AuctionBid[]>();
  specs.forEach((spec, index) => {
    const bid: AuctionBid = {
      bid: { id: `${spec.bidder}-${index}`, impid: spec.impid ?? 'imp-1', price: spec.price, ...spec.bid },
      type: spec.type ?? 'banner',
      bidder: spec.bidder,
      adapter: spec.bidder,
      originalPrice: spec.price,
      originalCurrency: 'USD',
      targeting: {},
      winner: spec.winner ?? false,
      bidderBest: spec.bidderBest ?? true,
    };
    if (spec.targetBidderCode) bid.targetBidderCode = spec.targetBidderCode;
    if (spec.namedType) bid.namedType = spec.namedType;
    if (spec.duration !== undefined) bid.video = { duration: spec.duration };
    if (spec.cache) bid.cache = spec.cache;
    seats.set(spec.bidder, [...(seats.get(spec.bidder) ?? []), bid]);
  });
  return {
    request: { id: 'r', imp: [{ id: 'imp-1', banner: { w: 300, h: 250 } }], site: { page: 'https://p.example' }, ext: { prebid: { targeting } }, ...extra },
    seats: [...seats].map(([bidder, bids]) => ({ bidder, adapter: bidder, bids, errors: [], responseTimeMs: 1 })),
  };
}

const bidsOf = (result: AuctionResult) => result.seats.flatMap((seat) => seat.bids);

describe('gavel.targeting: the publisher settings', () => {
  describe('keys', () => {
    it('mediatypepricegranularity buckets a bid that names its type (mtype, else ext.prebid.type) by that type\'s granularity, others by pricegranularity', () => {
      const granularities = { pricegranularity: 'med', mediatypepricegranularity: { video: { precision: 1, ranges: [{ max: 50, increment: 5 }] } } };
      const result = auction(granularities, [
        { bidder: 'v', price: 18, type: 'video', winner: true, bid: { mtype: 2 } },
        { bidder: 'b', price: 18, impid: 'imp-2' },
        // As Prebid Server reads it: the type the adapter gave does not count, the one the bid names does.
        { bidder: 'u', price: 18, type: 'video', impid: 'imp-3' },
        { bidder: 'n', price: 18, type: 'banner', impid: 'imp-4', namedType: 'video' },
        { bidder: 'm', price: 18, type: 'video', impid: 'imp-5', bid: { mtype: 1 }, namedType: 'video' },
      ]);
      service().apply(result, testContext());
      expect(bidsOf(result).map((bid) => bid.targeting.hb_pb ?? bid.targeting[`hb_pb_${bid.bidder}`])).to.deep.equal(['15.0', '18.00', '18.00', '15.0', '18.00']);
      expect(service().priceBucket(bidsOf(result)[0]!, result.request, testContext())).to.equal('15.0');
    });

    it('prefix replaces hb; the account may give one and cut keys shorter; a prefix that does not fit falls back to hb with a warning', () => {
      const keysOf = (targeting: unknown, account: Record<string, unknown> = {}) => {
        const context = testContext({ account: { id: 'a', ...account } });
        const result = auction(targeting, [{ bidder: 'appnexus', price: 1, winner: true }]);
        service().apply(result, context);
        return { keys: Object.keys(bidsOf(result)[0]!.targeting).sort(), warnings: context.warnings.general };
      };
      expect(keysOf({ prefix: 'pbs' }).keys).to.deep.equal(['pbs_bidder', 'pbs_bidder_appnexus', 'pbs_pb', 'pbs_pb_appnexus']);
      expect(keysOf({}, { targeting_prefix: 'acct' }).keys).to.deep.equal(['acct_bidder', 'acct_bidder_appnexus', 'acct_pb', 'acct_pb_appnexus']);
      expect(keysOf({}, { truncate_target_attr: 14 }).keys).to.deep.equal(['hb_bidder', 'hb_bidder_appn', 'hb_pb', 'hb_pb_appnexus']);
      const tooLong = keysOf({ prefix: 'muchtoolong' });
      expect(tooLong.keys[0]).to.match(/^hb_/);
      expect(tooLong.warnings?.map((warning) => warning.code)).to.deep.equal([10015]);
      expect(keysOf({}, { truncate_target_attr: 10 }).warnings?.map((warning) => warning.code)).to.deep.equal([10016]);
      // As Prebid Server settles it: 0 is below 12 (warned, keys cut to 20); exactly 12 cuts keys to 12 and leaves
      // room for an 8-character prefix, without a warning.
      const zero = keysOf({ prefix: 'pbs' }, { truncate_target_attr: 0 });
      expect(zero.warnings?.map((warning) => warning.code)).to.deep.equal([10016]);
      expect(zero.keys).to.deep.equal(['hb_bidder', 'hb_bidder_appnexus', 'hb_pb', 'hb_pb_appnexus']);
      const twelve = keysOf({ prefix: 'pbs' }, { truncate_target_attr: 12 });
      expect(twelve.warnings).to.equal(undefined);
      expect(twelve.keys).to.deep.equal(['pbs_bidder', 'pbs_bidder_a', 'pbs_pb', 'pbs_pb_appne']);
    });

    it('alwaysincludedeals keys a deal bid per bidder even with bidder keys off', () => {
      const result = auction({ includebidderkeys: false, alwaysincludedeals: true }, [
        { bidder: 'a', price: 2, winner: true },
        { bidder: 'd', price: 1, bid: { dealid: 'deal-1' } },
        { bidder: 'n', price: 1.5 },
      ]);
      service().apply(result, testContext());
      expect(bidsOf(result).map((bid) => bid.targeting)).to.deep.equal([
        { hb_pb: '2.00', hb_bidder: 'a' },
        { hb_pb_d: '1.00', hb_bidder_d: 'd', hb_deal_d: 'deal-1' },
        {},
      ]);
    });

    it("keys a multibid bidder's extra bids under their codes, with the code as hb_bidder", () => {
      const result = auction({}, [
        { bidder: 'many', price: 3, winner: true, targetBidderCode: 'many' },
        { bidder: 'many', price: 2, bidderBest: false, targetBidderCode: 'mny2' },
        { bidder: 'many', price: 1, bidderBest: false },
      ]);
      service().apply(result, testContext());
      expect(bidsOf(result).map((bid) => bid.targeting)).to.deep.equal([
        { hb_pb: '3.00', hb_pb_many: '3.00', hb_bidder: 'many', hb_bidder_many: 'many' },
        { hb_pb_mny2: '2.00', hb_bidder_mny2: 'mny2' },
        {},
      ]);
    });

    it('keys what the bid cache stored (hb_cache_id, hb_uuid) and the public cache address', () => {
      const result = auction({}, [{ bidder: 'appnexus', price: 1, winner: true, type: 'video', cache: { bids: { cacheId: 'u0' }, vastXml: { cacheId: 'u1' } } }]);
      service({ cachePublicUrl: { host: 'cache.example', path: '/cache' } }).apply(result, testContext());
      expect(bidsOf(result)[0]!.targeting).to.include({
        hb_cache_id: 'u0', hb_cache_id_appnexus: 'u0', hb_uuid: 'u1', hb_uuid_appnexus: 'u1',
        hb_cache_host: 'cache.example', hb_cache_host_appnex: 'cache.example', hb_cache_path: '/cache', hb_cache_path_appnex: '/cache',
      });
    });
  });

  describe('brand categories and durations (prepare)', () => {
    const brand = (extra: Record<string, unknown> = {}) => ({ includebrandcategory: { primaryadserver: 1, withcategory: true, ...extra.brand as object }, durationrangesec: [15, 30], ...extra });
    const prepared = (targeting: unknown, specs: Spec[], context: TestContext = testContext()) => {
      const result = auction(targeting, specs);
      service().prepare!(result, context);
      service().apply(result, context);
      return { result, context, kept: bidsOf(result) };
    };

    it('translates the category, rounds the duration up and keys hb_pb_cat_dur (appendbiddernames adds the bidder)', () => {
      const { kept } = prepared(brand(), [{ bidder: 'v', price: 5, winner: true, duration: 10, bid: { cat: ['IAB17'] } }]);
      expect(kept[0]!.targeting).to.include({ hb_pb_cat_dur: '5.00_sports_15s', hb_pb_cat_dur_v: '5.00_sports_15s' });
      const appended = prepared(brand({ appendbiddernames: true }), [{ bidder: 'v', price: 5, winner: true, duration: 10, bid: { cat: ['IAB17'] } }]);
      expect(appended.kept[0]!.targeting.hb_pb_cat_dur).to.equal('5.00_sports_15s_v');
    });

    it('refuses the auction when categories are to be translated for an ad server it does not recognise, once bids came back', () => {
      const unknown = brand({ brand: { primaryadserver: 3 } });
      expect(service().prepare!(auction(unknown, [{ bidder: 'v', price: 5, bid: { cat: ['IAB17'] } }]), testContext())).to.deep.equal({
        refused: 'Error in category mapping : Primary ad server 3 not recognized',
      });
      expect(service().prepare!(auction(unknown, []), testContext())).to.equal(undefined);
      expect(service().prepare!(auction(brand({ brand: { primaryadserver: 3, translatecategories: false } }), [{ bidder: 'v', price: 5, bid: { cat: ['IAB17'] } }]), testContext())).to.equal(undefined);
    });

    it("uses a publisher's own mapping, or the IAB category as it is without translation", () => {
      const own = prepared(brand({ brand: { publisher: 'pub-own' } }), [{ bidder: 'v', price: 5, winner: true, bid: { cat: ['IAB17'] } }]);
      expect(own.kept[0]!.categoryDuration).to.equal('5.00_own-sports_15s');
      const raw = prepared(brand({ brand: { translatecategories: false } }), [{ bidder: 'v', price: 5, winner: true, bid: { cat: ['IAB17'] } }]);
      expect(raw.kept[0]!.categoryDuration).to.equal('5.00_IAB17_15s');
    });

    it("leaves out bids it cannot key, reported as Prebid Server reports them: the auction's errors (999), a non-bid (303) for one without a category", () => {
      const specs: Spec[] = [
        { bidder: 'a', price: 1, bid: { id: 'none' } },
        { bidder: 'a', price: 1, bid: { id: 'two', cat: ['IAB17', 'IAB1'] } },
        { bidder: 'a', price: 1, bid: { id: 'unknown', cat: ['IAB99'] } },
        { bidder: 'a', price: 1, duration: 45, bid: { id: 'long', cat: ['IAB17'] } },
        { bidder: 'a', price: 1, bid: { id: 'good', cat: ['IAB17'] } },
      ];
      const { kept, context } = prepared(brand(), specs);
      expect(kept.map((bid) => bid.bid.id)).to.deep.equal(['good']);
      expect(context.errors.a).to.equal(undefined);
      expect(context.errors.prebid!.map((error) => `${error.code} ${error.message}`)).to.deep.equal([
        '999 bid rejected [bid ID: none] reason: Bid did not contain a category',
        '999 bid rejected [bid ID: two] reason: Bid did not contain a category',
        "999 bid rejected [bid ID: unknown] reason: Category mapping file for primary ad server: 'freewheel', publisher: '' not found",
        '999 bid rejected [bid ID: long] reason: bid duration exceeds maximum allowed',
      ]);
      expect(context.rejected.map((entry) => [entry.bid.bid.id, entry.reason])).to.deep.equal([['none', 303], ['two', 303]]);

      // The video endpoint reports per bidder, in its own words (its pods' errors).
      const video = prepared(brand(), specs, testContext({ endpoint: 'video' }));
      expect(video.context.errors.a!.map((error) => `${error.code} ${error.message}`)).to.deep.equal([
        '3 bid none rejected: it carries no IAB category (bid.cat), which brand categories need',
        '3 bid two rejected: it carries 2 IAB categories (IAB17, IAB1); brand categories need exactly one',
        "3 bid unknown rejected: its IAB category IAB99 has no freewheel category in this host's mapping",
        '3 bid long rejected: its duration 45 s is longer than the longest allowed duration, 30 s',
      ]);
      expect(video.context.rejected.map((entry) => entry.reason)).to.deep.equal([303, 303, 300, 300]);
    });

    it("uses an adapter's primary category as it is, before bid.cat", () => {
      const { kept } = prepared(brand(), [{ bidder: 'v', price: 5, winner: true, bid: { cat: ['IAB17'] } }]);
      expect(kept[0]!.categoryDuration).to.equal('5.00_sports_15s');
      const result = auction(brand(), [{ bidder: 'v', price: 5, winner: true, bid: { cat: ['IAB17'] } }]);
      result.seats[0]!.bids[0]!.video = { duration: 10, primaryCategory: 'adserver-own' };
      service().prepare!(result, testContext());
      expect(bidsOf(result)[0]!.categoryDuration).to.equal('5.00_adserver-own_15s');
    });

    it('keeps one bid per translated category: the higher price, the earlier bid on a tie', () => {
      const specs: Spec[] = [
        { bidder: 'alpha', price: 4, bid: { id: 'movie', cat: ['IAB1-5'] } },
        { bidder: 'beta', price: 4, bid: { id: 'tv', cat: ['IAB1-7'] } },
        { bidder: 'beta', price: 6, bid: { id: 'sport', cat: ['IAB17'] } },
        { bidder: 'alpha', price: 7, bid: { id: 'sport2', cat: ['IAB17'] } },
      ];
      const { kept, context } = prepared(brand(), specs);
      expect(kept.map((bid) => bid.bid.id).sort()).to.deep.equal(['movie', 'sport2']);
      expect(context.errors.prebid!.map((error) => [error.code, error.message])).to.deep.equal([
        [999, 'bid rejected [bid ID: tv] reason: Bid was deduplicated'],
        [999, 'bid rejected [bid ID: sport] reason: Bid was deduplicated'],
      ]);
      expect(context.rejected).to.deep.equal([]);
      const video = prepared(brand(), specs, testContext({ endpoint: 'video' }));
      expect(video.context.errors.beta!.map((error) => [error.code, error.message])).to.deep.equal([
        [0, 'bid tv deduplicated: bid movie of alpha has the same category (screen) in pod imp-1 at a higher or equal price'],
        [0, 'bid sport deduplicated: bid sport2 of alpha has the same category (sports) in pod imp-1 at a higher or equal price'],
      ]);
    });

    it('without categories, deduplicates on the whole key unless asked not to', () => {
      const specs: Spec[] = [{ bidder: 'a', price: 2, duration: 15 }, { bidder: 'b', price: 2, duration: 12 }];
      expect(prepared({ includebrandcategory: { withcategory: false }, durationrangesec: [15] }, specs).kept).to.have.length(1);
      expect(prepared({ includebrandcategory: { withcategory: false, deduplicate: false }, durationrangesec: [15] }, specs).kept).to.have.length(2);
    });

    it('on the video endpoint, bids compete within their pod only', () => {
      const specs: Spec[] = [
        { bidder: 'a', price: 2, impid: '1_0', bid: { cat: ['IAB17'] } },
        { bidder: 'b', price: 3, impid: '2_0', bid: { cat: ['IAB17'] } },
        { bidder: 'c', price: 1, impid: '2_1', bid: { cat: ['IAB17'] } },
      ];
      const { kept, context } = prepared(brand(), specs, testContext({ endpoint: 'video' }));
      expect(kept.map((bid) => bid.bidder)).to.deep.equal(['a', 'b']);
      expect(context.errors.c![0]!.message).to.contain('in pod 2 at a higher or equal price');
    });

    it('does nothing without includebrandcategory', () => {
      const { kept } = prepared({ durationrangesec: [15] }, [{ bidder: 'a', price: 1, duration: 60 }]);
      expect(kept[0]!.categoryDuration).to.equal(undefined);
      expect(kept[0]!.targeting).to.not.have.property('hb_pb_cat_dur');
    });
  });

  describe('fitDuration (bid -> allowed duration)', () => {
    const fit = (duration: number | undefined, requireExactDuration: boolean) => fitDuration(duration, { durations: [15, 30], requireExactDuration });

    it('rounds a bid up to the nearest allowed duration', () => {
      expect(fit(10, false)).to.deep.equal({ seconds: 15 });
      expect(fit(18, false)).to.deep.equal({ seconds: 30 });
      expect(fit(30, false)).to.deep.equal({ seconds: 30 });
    });

    it('rejects a bid longer than the longest allowed duration', () => {
      expect(fit(45, false)).to.have.property('reason').that.includes('longer than the longest allowed duration');
    });

    it('with exact durations, accepts only a listed duration', () => {
      expect(fit(15, true)).to.deep.equal({ seconds: 15 });
      expect(fit(18, true)).to.have.property('reason').that.includes('requires an exact duration');
    });

    it('counts a bid with no duration as 0 s: the shortest slot, or rejected when exact', () => {
      expect(fit(undefined, false)).to.deep.equal({ seconds: 15 });
      expect(fit(undefined, true)).to.have.property('reason');
    });

    it('fits a negative duration to the shortest allowed one, as Prebid Server\'s findDurationRange; rejects non-finite durations; with no allowed durations keeps the bid own', () => {
      expect(fit(-5, false)).to.deep.equal({ seconds: 15 });
      expect(fit(-5, true)).to.have.property('reason');
      expect(fitDuration(-5, { durations: [], requireExactDuration: false })).to.deep.equal({ seconds: -5 });
      expect(fit(Number.NaN, false)).to.have.property('reason');
      expect(fitDuration(7, { durations: [], requireExactDuration: false })).to.deep.equal({ seconds: 7 });
    });
  });

  describe('ad server targeting (adservertargeting)', () => {
    it("warns about entries it cannot use, in Prebid Server's words (10007), and keys the rest", () => {
      const rules = [
        { key: '', source: 'bidrequest', value: 'site.page' },
        { key: 'k', source: 'nowhere', value: 'site.page' },
        { key: 'k', source: 'static', value: '' },
        { key: 'page', source: 'bidrequest', value: 'site.page' },
        { key: 'banner', source: 'bidrequest', value: 'imp.banner' },
        { key: 'missing', source: 'bidrequest', value: 'site.nothing' },
        { key: '{{BIDDER}}_price', source: 'bidresponse', value: 'seatbid.bid.price' },
        { key: 'odd', source: 'bidresponse', value: 'price' },
        { key: 'averyveryverylongkeyname', source: 'static', value: 'x' },
      ];
      const result = auction(undefined, [{ bidder: 'appnexus', price: 1.01 }], { ext: { prebid: { adservertargeting: rules } } });
      const context = testContext();
      service().apply(result, context);
      expect(bidsOf(result)[0]!.targeting).to.deep.equal({ page: 'https://p.example', appnexus_price: '1.01', averyveryverylongkey: 'x' });
      expect(context.warnings.general!.map((warning) => `${warning.code} ${warning.message}`)).to.deep.equal([
        '10007 Key is empty for the ad server targeting object at index 0',
        '10007 Incorrect source for the ad server targeting object at index 1',
        '10007 Value is empty for the ad server targeting object at index 2',
        '10007 incorrect value type for path: imp.banner, value can only be string or number',
        '10007 value not found for path: site.nothing',
        '10007 key not found for field in bid response: price for bidder: appnexus',
      ]);
    });
  });
});
