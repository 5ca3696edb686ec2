import { expect } from 'chai';
import type { AuctionBid, BidRequest, BidsPayload, HookContext, HookResult, PluginLogger } from '../../../core/api/index.js';
import bidAdjustmentModule from '../index.js';

const silentLogger: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} };

const hook = bidAdjustmentModule.create({}, {
  logger: silentLogger,
  bidders: new Map(),
  validateBidderParams: () => undefined,
  cachePut: async (values) => values.map(() => undefined),
})['adjust-bids']!['apply-factors'];

function context(namespace: 'svc' | 'prebid' = 'prebid'): HookContext {
  return { endpoint: 'auction', namespace, deadline: Date.now() + 1000, secure: false, moduleContext: {}, logger: silentLogger };
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

/** Runs the hook and applies its changes as the executor does, on a copy; returns the prices after. */
function adjustedPrices(input: BidsPayload, ctx: HookContext = context()): { result: HookResult<BidsPayload> | undefined; prices: number[]; output: BidsPayload } {
  const before = structuredClone(input);
  const result = hook(input, ctx) as HookResult<BidsPayload> | undefined;
  expect(input, 'the hook itself must not edit its payload').to.deep.equal(before);
  let output = structuredClone(input);
  for (const change of result?.changes ?? []) output = change(output) ?? output;
  return { result, prices: output.bids.map((b) => b.bid.price), output };
}

describe('gavel.bid-adjustment', () => {
  it('is an adjust-bids module', () => {
    expect(bidAdjustmentModule.code).to.equal('gavel.bid-adjustment');
    expect(bidAdjustmentModule.stages).to.deep.equal(['adjust-bids']);
  });

  it('multiplies every bid of the bidder by its factor', () => {
    const { result, prices } = adjustedPrices(payload('appnexus', [1, 2.5], { appnexus: 0.9, rubicon: 2 }));
    expect(result?.action).to.equal('update');
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

  it('does nothing without factors, for other bidders, or for a factor of 1', () => {
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
