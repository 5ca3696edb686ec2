import { expect } from 'chai';
import { parsePriceGranularity, priceBucket, type AllBidsPayload, type AuctionBid, type Bid, type BidRequest, type MediaType } from '../../../core/api/index.js';
import { testContext, type TestContext } from '../../../core/api/testing.js';
import targetingModule from '../index.js';

const targeting = targetingModule.provides!.targeting!({}, {
  logger: testContext().logger,
  bidders: new Map(),
  validateBidderParams: () => undefined,
  cachePut: async (values) => values.map(() => undefined),
});

function context(overrides: Parameters<typeof testContext>[0] = {}): TestContext {
  return testContext({ secure: true, ...overrides });
}

interface BidSpec {
  bidder: string;
  price: number;
  winner?: boolean;
  bidderBest?: boolean;
  type?: MediaType;
  bid?: Partial<Bid>;
  targeting?: Record<string, string>;
}

function auctionBid(spec: BidSpec): AuctionBid {
  return {
    bid: { id: `${spec.bidder}-bid`, impid: 'imp-1', price: spec.price, ...spec.bid },
    type: spec.type ?? 'banner',
    bidder: spec.bidder,
    adapter: spec.bidder.toLowerCase(),
    originalPrice: spec.price,
    originalCurrency: 'USD',
    targeting: { ...spec.targeting },
    winner: spec.winner ?? false,
    bidderBest: spec.bidderBest ?? true,
  };
}

function payload(targeting: unknown, bids: BidSpec[], requestOverrides: Partial<BidRequest> = {}, ns = 'prebid'): AllBidsPayload {
  const bySeat = new Map<string, AuctionBid[]>();
  for (const spec of bids) bySeat.set(spec.bidder, [...(bySeat.get(spec.bidder) ?? []), auctionBid(spec)]);
  const request: BidRequest = {
    id: 'req',
    imp: [{ id: 'imp-1', banner: { w: 300, h: 250 } }],
    site: { page: 'https://example.com' },
    ext: targeting === undefined ? {} : { [ns]: { targeting } },
    ...requestOverrides,
  };
  return {
    request,
    seats: [...bySeat].map(([bidder, seatBids]) => ({ bidder, adapter: bidder, bids: seatBids, errors: [], responseTimeMs: 5 })),
  };
}

/** Runs the service on a copy of the auction; `result` says whether it set keys and what it warned. */
function run(input: AllBidsPayload, ctx: TestContext = context()): { result: { action: 'update'; warnings?: TestContext['warnings'] } | { action?: undefined; warnings: TestContext['warnings'] } | undefined; output: AllBidsPayload } {
  const output = structuredClone(input);
  targeting.apply(output, ctx);
  const changed = JSON.stringify(output) !== JSON.stringify(input);
  const warned = Object.keys(ctx.warnings).length > 0;
  if (changed) return { result: warned ? { action: 'update', warnings: ctx.warnings } : { action: 'update' }, output };
  return { result: warned ? { warnings: ctx.warnings } : undefined, output };
}

function targetingOf(output: AllBidsPayload, bidder: string, index = 0): Record<string, string> {
  const seat = output.seats.find((s) => s.bidder === bidder);
  if (!seat) throw new Error(`no seat ${bidder}`);
  return seat.bids[index].targeting;
}

describe('gavel.targeting', () => {
  it('is a module that provides the targeting service', () => {
    expect(targetingModule.code).to.equal('gavel.targeting');
    expect(Object.keys(targetingModule.provides ?? {})).to.deep.equal(['targeting']);
    expect(priceBucket(1.87, { precision: 2, ranges: [{ max: 20, increment: 0.1 }] })).to.equal('1.80');
    expect(parsePriceGranularity('auto')).to.have.property('granularity');
  });

  it('does nothing when the request asks for no targeting', () => {
    const { result, output } = run(payload(undefined, [{ bidder: 'appnexus', price: 1, winner: true }]));
    expect(result).to.equal(undefined);
    expect(targetingOf(output, 'appnexus')).to.deep.equal({});
  });

  it('does nothing when targeting sits under the other namespace', () => {
    const input = payload({}, [{ bidder: 'appnexus', price: 1, winner: true }], {}, 'svc');
    expect(run(input, context({ namespace: 'prebid' })).result).to.equal(undefined);
  });

  it('sets winner and bidder keys with med buckets by default', () => {
    const { result, output } = run(payload({}, [{ bidder: 'appnexus', price: 1.87, winner: true }]));
    expect(result?.action).to.equal('update');
    expect(targetingOf(output, 'appnexus')).to.deep.equal({
      hb_pb: '1.80',
      hb_pb_appnexus: '1.80',
      hb_bidder: 'appnexus',
      hb_bidder_appnexus: 'appnexus',
    });
  });

  it('reads the namespace the request used', () => {
    const input = payload({ pricegranularity: 'dense' }, [{ bidder: 'appnexus', price: 1.87, winner: true }], {}, 'svc');
    const { output } = run(input, context({ namespace: 'svc' }));
    expect(targetingOf(output, 'appnexus').hb_pb).to.equal('1.87');
  });

  it('buckets with a legacy name or a custom granularity', () => {
    const bids = [{ bidder: 'appnexus', price: 1.87, winner: true }];
    expect(targetingOf(run(payload({ pricegranularity: 'auto' }, bids)).output, 'appnexus').hb_pb).to.equal('1.85');
    expect(targetingOf(run(payload({ pricegranularity: 'low' }, bids)).output, 'appnexus').hb_pb).to.equal('1.50');
    const custom = { precision: 3, ranges: [{ max: 10, increment: 0.25 }] };
    expect(targetingOf(run(payload({ pricegranularity: custom }, bids)).output, 'appnexus').hb_pb).to.equal('1.750');
  });

  it('puts plain keys only on the winner and suffixed keys on each bidder best', () => {
    const { output } = run(
      payload({}, [
        { bidder: 'appnexus', price: 2.5, winner: true, bidderBest: true },
        { bidder: 'appnexus', price: 1.2, winner: false, bidderBest: false },
        { bidder: 'rubicon', price: 2.0, winner: false, bidderBest: true },
      ]),
    );
    expect(targetingOf(output, 'appnexus', 0)).to.deep.equal({
      hb_pb: '2.50', hb_pb_appnexus: '2.50', hb_bidder: 'appnexus', hb_bidder_appnexus: 'appnexus',
    });
    expect(targetingOf(output, 'appnexus', 1)).to.deep.equal({});
    expect(targetingOf(output, 'rubicon')).to.deep.equal({ hb_pb_rubicon: '2.00', hb_bidder_rubicon: 'rubicon' });
  });

  it('leaves out plain keys when includewinners is false', () => {
    const { output } = run(payload({ includewinners: false }, [{ bidder: 'appnexus', price: 1, winner: true }]));
    expect(targetingOf(output, 'appnexus')).to.deep.equal({ hb_pb_appnexus: '1.00', hb_bidder_appnexus: 'appnexus' });
  });

  it('leaves out bidder keys when includebidderkeys is false', () => {
    const { output } = run(payload({ includebidderkeys: false }, [{ bidder: 'appnexus', price: 1, winner: true }]));
    expect(targetingOf(output, 'appnexus')).to.deep.equal({ hb_pb: '1.00', hb_bidder: 'appnexus' });
  });

  it('sets nothing when both includes are false', () => {
    const input = payload({ includewinners: false, includebidderkeys: false, includeformat: true }, [
      { bidder: 'appnexus', price: 1, winner: true },
    ]);
    const { result, output } = run(input);
    expect(result).to.equal(undefined);
    expect(targetingOf(output, 'appnexus')).to.deep.equal({});
  });

  it('adds hb_format only when includeformat is true', () => {
    const bids: BidSpec[] = [{ bidder: 'appnexus', price: 1, winner: true, type: 'video' }];
    expect(targetingOf(run(payload({ includeformat: true }, bids)).output, 'appnexus')).to.include({
      hb_format: 'video',
      hb_format_appnexus: 'video',
    });
    expect(targetingOf(run(payload({ includeformat: false }, bids)).output, 'appnexus')).to.not.have.property('hb_format');
  });

  it('adds hb_size only when the bid has both width and height', () => {
    const sized = run(payload({}, [{ bidder: 'appnexus', price: 1, winner: true, bid: { w: 300, h: 250 } }])).output;
    expect(targetingOf(sized, 'appnexus')).to.include({ hb_size: '300x250', hb_size_appnexus: '300x250' });
    for (const bid of [{ w: 300 }, { h: 250 }, { w: 0, h: 250 }, { w: 300, h: Number.NaN }]) {
      const output = run(payload({}, [{ bidder: 'appnexus', price: 1, winner: true, bid }])).output;
      expect(targetingOf(output, 'appnexus'), JSON.stringify(bid)).to.not.have.property('hb_size');
    }
  });

  it('adds hb_deal when the bid has a deal id', () => {
    const { output } = run(payload({}, [{ bidder: 'appnexus', price: 1, winner: true, bid: { dealid: 'deal-42' } }]));
    expect(targetingOf(output, 'appnexus')).to.include({ hb_deal: 'deal-42', hb_deal_appnexus: 'deal-42' });
    const noDeal = run(payload({}, [{ bidder: 'appnexus', price: 1, winner: true, bid: { dealid: '' } }])).output;
    expect(targetingOf(noDeal, 'appnexus')).to.not.have.property('hb_deal');
  });

  it('sets hb_env to mobile-app for app requests and amp on the AMP endpoint, nothing for sites', () => {
    const bids = [{ bidder: 'appnexus', price: 1, winner: true }];
    const app = run(payload({}, bids, { site: undefined, app: { bundle: 'com.example' } })).output;
    expect(targetingOf(app, 'appnexus')).to.include({ hb_env: 'mobile-app', hb_env_appnexus: 'mobile-app' });
    const amp = run(payload({}, bids), context({ endpoint: 'amp' })).output;
    expect(targetingOf(amp, 'appnexus')).to.include({ hb_env: 'amp', hb_env_appnexus: 'amp' });
    expect(targetingOf(run(payload({}, bids)).output, 'appnexus')).to.not.have.property('hb_env');
  });

  it('cuts every key to 20 characters and uses the seat name as spelled', () => {
    const { output } = run(
      payload({ includeformat: true }, [{ bidder: 'Appnexus', price: 2, winner: true, bid: { w: 1, h: 2, dealid: 'd' } }]),
      context({ endpoint: 'amp' }),
    );
    const longName = run(payload({}, [{ bidder: 'averyveryverylongbiddername', price: 2, winner: true }])).output;
    expect(targetingOf(output, 'Appnexus')).to.deep.equal({
      hb_pb: '2.00', hb_pb_Appnexus: '2.00',
      hb_bidder: 'Appnexus', hb_bidder_Appnexus: 'Appnexus',
      hb_size: '1x2', hb_size_Appnexus: '1x2',
      hb_deal: 'd', hb_deal_Appnexus: 'd',
      hb_format: 'banner', hb_format_Appnexus: 'banner',
      hb_env: 'amp', hb_env_Appnexus: 'amp',
    });
    expect(Object.keys(targetingOf(longName, 'averyveryverylongbiddername')).sort()).to.deep.equal([
      'hb_bidder', 'hb_bidder_averyveryv', 'hb_pb', 'hb_pb_averyveryveryl',
    ]);
  });

  it('keeps targeting keys set before it', () => {
    const { output } = run(payload({}, [{ bidder: 'appnexus', price: 1, winner: true, targeting: { custom: 'x' } }]));
    expect(targetingOf(output, 'appnexus')).to.include({ custom: 'x', hb_pb: '1.00' });
  });

  it('warns and sets nothing when the granularity is unusable', () => {
    const input = payload({ pricegranularity: { precision: -1, ranges: [{ max: 5, increment: 1 }] } }, [
      { bidder: 'appnexus', price: 1, winner: true },
    ]);
    const { result, output } = run(input);
    expect(result?.action).to.equal(undefined);
    expect(result?.warnings?.general).to.have.length(1);
    expect(result?.warnings?.general[0].message).to.contain('request.ext.prebid.targeting.pricegranularity');
    expect(targetingOf(output, 'appnexus')).to.deep.equal({});
  });

  it('gives the price bucket of the request\'s granularity, and the default one without targeting', () => {
    const bid = auctionBid({ bidder: 'appnexus', price: 1.87 });
    expect(targeting.priceBucket(bid, payload({ pricegranularity: 'low' }, []).request, context())).to.equal('1.50');
    expect(targeting.priceBucket(bid, payload(undefined, []).request, context())).to.equal('1.80');
  });

  it('rounds buckets as the account\'s bid_rounding says, once per bid, as Prebid Server\'s getCpmTarget', () => {
    const bids = [{ bidder: 'appnexus', price: 1.87, winner: true }];
    const withRounding = (bid_rounding: string | undefined): Record<string, string> =>
      targetingOf(run(payload({}, bids), context({ account: { id: 'a', bid_rounding } as never })).output, 'appnexus');
    expect(withRounding(undefined)).to.include({ hb_pb: '1.80', hb_pb_appnexus: '1.80' });
    expect(withRounding('down')).to.include({ hb_pb: '1.80', hb_pb_appnexus: '1.80' });
    expect(withRounding('up')).to.include({ hb_pb: '1.90', hb_pb_appnexus: '1.90' });
    expect(withRounding('true')).to.include({ hb_pb: '1.90', hb_pb_appnexus: '1.90' });
    expect(withRounding('other')).to.include({ hb_pb: '1.80', hb_pb_appnexus: '1.80' });
    const seen = new Set<string>();
    for (let i = 0; i < 64; i++) {
      const keys = withRounding('timesplit');
      expect(keys.hb_pb_appnexus).to.equal(keys.hb_pb);
      seen.add(keys.hb_pb);
    }
    expect([...seen].sort()).to.deep.equal(['1.80', '1.90']);
    const bid = auctionBid({ bidder: 'appnexus', price: 1.87 });
    expect(targeting.priceBucket(bid, payload({ pricegranularity: 'low' }, []).request, context({ account: { id: 'a', bid_rounding: 'up' } }))).to.equal('2.00');
  });
});
