import { expect } from 'chai';
import type { AuctionBid, AuctionResult, Imp } from '../../../core/api/index.js';
import { testContext } from '../../../core/api/testing.js';
import targetingModule from '../index.js';

const targeting = targetingModule.provides!.targeting!({}, {
  logger: testContext().logger,
  bidders: new Map(),
  validateBidderParams: () => undefined,
  cachePut: async (values) => values.map(() => undefined),
  categoryMapping: () => undefined,
});

interface Spec {
  bidder: string;
  price: number;
  dealPriority?: number;
  bidderBest?: boolean;
  targetBidderCode?: string;
  impid?: string;
  category?: string;
}

function auction(specs: Spec[], imps: Imp[], supportdeals: unknown = true): AuctionResult {
  const bids: AuctionBid[] = specs.map((spec, index) => ({
    bid: { id: `bid-${index}`, impid: spec.impid ?? 'imp-1', price: spec.price, dealid: 'deal' },
    type: 'video',
    bidder: spec.bidder,
    adapter: spec.bidder,
    originalPrice: spec.price,
    originalCurrency: 'USD',
    targeting: {},
    winner: index === 0,
    bidderBest: spec.bidderBest ?? true,
    ...(spec.targetBidderCode && { targetBidderCode: spec.targetBidderCode }),
    ...(spec.dealPriority !== undefined && { dealPriority: spec.dealPriority }),
    ...(spec.category && { categoryDuration: spec.category }),
  }));
  const bidders = [...new Set(specs.map((spec) => spec.bidder))];
  return {
    request: { id: 'r', imp: imps, site: { page: 'https://p.example' }, ext: { prebid: { supportdeals, targeting: { includebidderkeys: true } } } },
    seats: bidders.map((bidder) => ({ bidder, adapter: bidder, bids: bids.filter((bid) => bid.bidder === bidder), errors: [], responseTimeMs: 1 })),
  };
}

function imp(id: string, bidders: Record<string, unknown>): Imp {
  return { id, video: { mimes: ['video/mp4'] }, ext: { prebid: { bidder: bidders } } };
}

describe('gavel.targeting: deal tiers (supportdeals), as Prebid Server\'s applyDealSupport', () => {
  it('keys hb_pb_cat_dur by the tier of a bid whose deal priority reaches it, and marks the bid', () => {
    const result = auction(
      [
        { bidder: 'appnexus', price: 5, dealPriority: 5, category: '5.00_sports_30s' },
        { bidder: 'rubicon', price: 4, dealPriority: 2, category: '4.00_news_15s' },
        { bidder: 'openx', price: 3, category: '3.00_cars_30s' },
      ],
      [imp('imp-1', { appnexus: { placementId: 1, dealTier: { prefix: 'tier', minDealTier: 5 } }, Rubicon: { dealtier: { prefix: 'rt', mindealtier: 3 } }, openx: {} })],
    );
    const context = testContext();
    targeting.apply(result, context);
    const [appnexus, rubicon, openx] = result.seats.map((seat) => seat.bids[0]!);
    expect(appnexus!.dealTierSatisfied).to.equal(true);
    expect(appnexus!.targeting).to.include({ hb_pb_cat_dur: 'tier5_sports_30s', hb_pb_cat_dur_appnex: 'tier5_sports_30s' });
    expect(rubicon!.dealTierSatisfied).to.equal(undefined);
    expect(rubicon!.targeting.hb_pb_cat_dur_rubico).to.equal('4.00_news_15s');
    expect(openx!.dealTierSatisfied).to.equal(undefined);
    expect(context.errors).to.deep.equal({});
  });

  it('reports a bid with a deal priority whose bidder has no usable tier for its imp, in Prebid Server\'s words', () => {
    const result = auction(
      [
        { bidder: 'appnexus', price: 5, dealPriority: 5, category: '5.00_sports_30s' },
        { bidder: 'rubicon', price: 4, dealPriority: 4, impid: 'imp-2' },
        { bidder: 'openx', price: 3, dealPriority: 9 },
      ],
      [imp('imp-1', { appnexus: { dealTier: { prefix: '', minDealTier: 5 } }, openx: { dealTier: { prefix: 'o', minDealTier: 0 } } }), imp('imp-2', { rubicon: {} })],
    );
    const context = testContext();
    targeting.apply(result, context);
    expect(result.seats.map((seat) => seat.bids[0]!.dealTierSatisfied)).to.deep.equal([undefined, undefined, undefined]);
    expect(result.seats[0]!.bids[0]!.targeting.hb_pb_cat_dur).to.equal('5.00_sports_30s');
    expect(context.errors.prebid?.map((error) => [error.code, error.message])).to.deep.equal([
      [999, "dealTier configuration invalid for bidder 'appnexus', imp ID 'imp-1'"],
      [999, "dealTier configuration invalid for bidder 'rubicon', imp ID 'imp-2'"],
      [999, "dealTier configuration invalid for bidder 'openx', imp ID 'imp-1'"],
    ]);
  });

  it('reads only the bids targeting keys per bidder, and nothing without supportdeals', () => {
    const tiers = [imp('imp-1', { appnexus: { dealTier: { prefix: 't', minDealTier: 1 } } })];
    const specs: Spec[] = [
      { bidder: 'appnexus', price: 5, dealPriority: 3, targetBidderCode: 'appnexus' },
      { bidder: 'appnexus', price: 4, dealPriority: 3, bidderBest: false, targetBidderCode: 'apn2' },
      { bidder: 'appnexus', price: 3, dealPriority: 3, bidderBest: false },
    ];
    const result = auction(specs, tiers);
    targeting.apply(result, testContext());
    expect(result.seats[0]!.bids.map((bid) => bid.dealTierSatisfied)).to.deep.equal([true, true, undefined]);
    const off = auction(specs, tiers, false);
    targeting.apply(off, testContext());
    expect(off.seats[0]!.bids.map((bid) => bid.dealTierSatisfied)).to.deep.equal([undefined, undefined, undefined]);
  });
});
