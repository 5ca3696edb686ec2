import { expect } from 'chai';
import type { AuctionBid, BidRequest, BidsPayload } from '../../../core/api/index.js';
import { testContext, type TestContext } from '../../../core/api/testing.js';
import bidAdjustmentModule from '../index.js';

const adjuster = bidAdjustmentModule.provides!['bid-adjustment']!({}, {
  logger: testContext().logger,
  bidders: new Map(),
  validateBidderParams: () => undefined,
  cachePut: async (values) => values.map(() => undefined),
});

function context(namespace: 'svc' | 'prebid' = 'prebid'): TestContext {
  return testContext({ namespace });
}

function auctionBid(bidder: string, price: number, id = `${bidder}-bid`): AuctionBid {
  return {
    bid: { id, impid: 'imp-1', price },
    type: 'banner',
    bidder,
    adapter: bidder.toLowerCase(),
    originalPrice: price,
    originalCurrency: 'USD',
    targeting: {},
    winner: false,
    bidderBest: false,
  };
}

function payload(bidder: string, prices: number[], factors: unknown, namespace = 'prebid'): BidsPayload {
  const request: BidRequest = {
    id: 'req',
    imp: [{ id: 'imp-1', banner: { w: 300, h: 250 } }],
    ext: factors === undefined ? {} : { [namespace]: { bidadjustmentfactors: factors } },
  };
  return { bidder, request, bids: prices.map((price, i) => auctionBid(bidder, price, `bid-${i}`)) };
}

/** Runs the service on a copy of the bids; `result` is 'update' when it changed a price, else undefined. */
function adjustedPrices(input: BidsPayload, ctx: TestContext = context()): { result: 'update' | undefined; prices: number[]; output: BidsPayload } {
  const output = structuredClone(input);
  adjuster.adjust(output.bids, { bidder: output.bidder, adapter: output.bidder.toLowerCase(), request: output.request }, ctx);
  const prices = output.bids.map((b) => b.bid.price);
  const changed = prices.some((price, i) => price !== input.bids[i]!.bid.price);
  return { result: changed ? 'update' : undefined, prices, output };
}

describe('gavel.bid-adjustment', () => {
  it('is a module that provides the bid-adjustment service', () => {
    expect(bidAdjustmentModule.code).to.equal('gavel.bid-adjustment');
    expect(Object.keys(bidAdjustmentModule.provides ?? {})).to.deep.equal(['bid-adjustment']);
  });

  it('multiplies every bid of the bidder by its factor', () => {
    const { result, prices } = adjustedPrices(payload('appnexus', [1, 2.5], { appnexus: 0.9, rubicon: 2 }));
    expect(result).to.equal('update');
    expect(prices).to.deep.equal([0.9, 2.25]);
  });

  it('keeps the original price as bid', () => {
    const { output } = adjustedPrices(payload('appnexus', [2], { appnexus: 1.5 }));
    expect(output.bids[0].bid.price).to.equal(3);
    expect(output.bids[0].originalPrice).to.equal(2);
  });

  it('matches bidder names without regard to case', () => {
    expect(adjustedPrices(payload('Appnexus', [1], { APPNEXUS: 1.01 })).prices).to.deep.equal([1.01]);
    expect(adjustedPrices(payload('appnexus', [1], { AppNexus: 0.98 })).prices).to.deep.equal([0.98]);
  });

  it('prefers the exact spelling when two entries differ only by case', () => {
    expect(adjustedPrices(payload('appnexus', [1], { APPNEXUS: 0.5, appnexus: 2 })).prices).to.deep.equal([2]);
  });

  it('uses the factor of an alias under the alias name', () => {
    const factors = { appnexus: 1.01, districtm: 0.98 };
    expect(adjustedPrices(payload('districtm', [1], factors)).prices).to.deep.equal([0.98]);
  });

  it('reads the namespace the request used', () => {
    expect(adjustedPrices(payload('appnexus', [1], { appnexus: 2 }, 'svc'), context('svc')).prices).to.deep.equal([2]);
    expect(adjustedPrices(payload('appnexus', [1], { appnexus: 2 }, 'svc'), context('prebid')).result).to.equal(undefined);
  });

  it('changes no price without factors, for other bidders, or for a factor of 1', () => {
    expect(adjustedPrices(payload('appnexus', [1], undefined)).result).to.equal(undefined);
    expect(adjustedPrices(payload('appnexus', [1], { rubicon: 2 })).result).to.equal(undefined);
    expect(adjustedPrices(payload('appnexus', [1], { appnexus: 1 })).result).to.equal(undefined);
    expect(adjustedPrices(payload('appnexus', [], { appnexus: 2 })).result).to.equal(undefined);
  });

  it('ignores factors that are not positive numbers, and malformed factor maps', () => {
    for (const factor of [0, -1, '2', null, Number.NaN, Infinity, { value: 2 }]) {
      const { result, prices } = adjustedPrices(payload('appnexus', [1], { appnexus: factor }));
      expect(result, String(factor)).to.equal(undefined);
      expect(prices).to.deep.equal([1]);
    }
    for (const factors of ['appnexus', [2], 5]) {
      expect(adjustedPrices(payload('appnexus', [1], factors)).result, JSON.stringify(factors)).to.equal(undefined);
    }
  });

  it('never reads inherited properties as factors', () => {
    expect(adjustedPrices(payload('constructor', [1], {})).result).to.equal(undefined);
    expect(adjustedPrices(payload('__proto__', [1], {})).result).to.equal(undefined);
  });
});

describe('gavel.bid-adjustment: ext.<ns>.bidadjustments rules', () => {
  function rulePrices(bidder: string, byBidder: Record<string, unknown>): number[] {
    const request: BidRequest = {
      id: 'req',
      imp: [{ id: 'imp-1', banner: { w: 300, h: 250 } }],
      ext: { prebid: { bidadjustments: { mediatype: { banner: byBidder } } } },
    };
    const input: BidsPayload = { bidder, request, bids: [auctionBid(bidder, 1)] };
    return adjustedPrices(input).prices;
  }

  it("matches a rule's bidder name as written, as Prebid Server's rule keys do (unlike bidadjustmentfactors)", () => {
    const triple = { '*': [{ adjtype: 'multiplier', value: 3 }] };
    expect(rulePrices('appnexus', { appnexus: triple })).to.deep.equal([3]);
    expect(rulePrices('appnexus', { APPNEXUS: triple })).to.deep.equal([1]);
  });
});

describe("gavel.bid-adjustment: the account's bidadjustments merged under the request's (Prebid Server's bidadjustment.Merge)", () => {
  const triple = [{ adjtype: 'multiplier', value: 3 }];
  const half = [{ adjtype: 'multiplier', value: 0.5 }];
  const unusable = [{ adjtype: 'multiplier', value: 500 }];

  function run(fromRequest: unknown, fromAccount: unknown, bid: { bidder?: string; price?: number; dealid?: string } = {}): { price: number; ctx: TestContext } {
    const bidder = bid.bidder ?? 'alpha';
    const request: BidRequest = {
      id: 'req',
      imp: [{ id: 'imp-1', banner: { w: 300, h: 250 } }],
      ext: fromRequest === undefined ? {} : { prebid: { bidadjustments: fromRequest } },
    };
    const auction = auctionBid(bidder, bid.price ?? 1);
    if (bid.dealid) auction.bid.dealid = bid.dealid;
    const ctx = testContext({ account: { id: 'acct', ...(fromAccount !== undefined && { bidadjustments: fromAccount as never }) } });
    const { prices } = adjustedPrices({ bidder, request, bids: [auction] }, ctx);
    return { price: prices[0]!, ctx };
  }
  const banner = (byBidder: unknown) => ({ mediatype: { banner: byBidder } });

  it("applies the account's rules where the request has none for that media type, bidder and deal", () => {
    expect(run(undefined, banner({ alpha: { '*': triple } })).price).to.equal(3);
    expect(run(banner({ beta: { '*': half } }), banner({ alpha: { '*': triple } })).price).to.equal(3);
    expect(run(banner({ alpha: { 'deal-1': half } }), banner({ alpha: { '*': triple } })).price).to.equal(3);
    expect(run(banner({ alpha: { '*': half } }), banner({ alpha: { '*': triple } })).price).to.equal(0.5);
  });

  it('ignores an unusable account rule that the request replaces', () => {
    const { price, ctx } = run(banner({ alpha: { '*': half } }), banner({ alpha: { '*': unusable } }));
    expect(price).to.equal(0.5);
    expect(ctx.warnings).to.deep.equal({});
  });

  it("drops every rule, the request's too, when an account rule the request does not replace is unusable, warning under the exchange's scope", () => {
    const { price, ctx } = run(banner({ alpha: { '*': half } }), banner({ beta: { '*': unusable } }));
    expect(price).to.equal(1);
    expect(ctx.warnings).to.deep.equal({ prebid: [{ code: 10008, message: 'bid adjustment on account was invalid' }] });
    expect(run(banner({ alpha: { '*': half } }), banner({ beta: null })).price).to.equal(1);
    expect(run(banner({ alpha: { '*': half } }), banner({ alpha: null })).price).to.equal(0.5);
  });

  it('warns for an unusable request object read without validation, under general, and still applies the account', () => {
    const { price, ctx } = run(banner({ alpha: { '*': unusable } }), banner({ alpha: { '*': triple } }));
    expect(price).to.equal(3);
    expect(ctx.warnings).to.deep.equal({ general: [{ code: 10008, message: 'bid adjustment from request was invalid' }] });
  });
});

describe('gavel.bid-adjustment: the floor of an adjusted price', () => {
  function priceUnderRules(price: number, dealid?: string): number {
    const request: BidRequest = {
      id: 'req',
      imp: [{ id: 'imp-1', banner: { w: 300, h: 250 } }],
      ext: { prebid: { bidadjustments: { mediatype: { banner: { other: { '*': [{ adjtype: 'multiplier', value: 2 }] } } } } } },
    };
    const bid = auctionBid('alpha', price);
    if (dealid) bid.bid.dealid = dealid;
    return adjustedPrices({ bidder: 'alpha', request, bids: [bid] }).prices[0]!;
  }

  it('applies once the request has rules, even when none matches the bid (Prebid Server: 0.1 without a deal, 0 with one)', () => {
    expect(priceUnderRules(0)).to.equal(0.1);
    expect(priceUnderRules(-1)).to.equal(0.1);
    expect(priceUnderRules(-1, 'deal-1')).to.equal(0);
    expect(priceUnderRules(0, 'deal-1')).to.equal(0);
    expect(priceUnderRules(1.5)).to.equal(1.5);
  });
});
