import { expect } from 'chai';
import type { AccountSettings, AllBidsPayload, BidRequest, HookResult, ModuleHooks, SeatResult } from '../../../core/api/index.js';
import { silentLogger, testAuctionBid, testContext, type TestContext } from '../../../core/api/testing.js';
import { FloorsFetcher } from '../fetcher.js';
import { createFloorHooks, goFixed4 } from '../floors.js';
import { compileGroup, findRule } from '../rules.js';

type Json = Record<string, any>;

function hooks(random = () => 0): ModuleHooks {
  return createFloorHooks(new FloorsFetcher({ maxEntries: 10, logger: silentLogger }), random);
}

function apply<P>(payload: P, result: HookResult<P> | undefined | Promise<unknown>): P {
  for (const change of (result as HookResult<P> | undefined)?.changes ?? []) payload = (change(payload) as P | undefined) ?? payload;
  return payload;
}

const RATES: Record<string, number> = { 'EUR>USD': 1.25, 'USD>EUR': 0.8 };

function context(account: Partial<AccountSettings> = {}, fields: Json = {}): TestContext {
  return testContext({
    account: { id: 'acme', ...account },
    convertCurrency: (amount, from, to) => (from === to ? amount : RATES[`${from}>${to}`] === undefined ? undefined : amount * RATES[`${from}>${to}`]!),
    ...fields,
  });
}

function request(floors: Json | undefined, imps: Json[] = [{ id: 'imp-1', banner: { format: [{ w: 300, h: 250 }] } }], extra: Json = {}): BidRequest {
  return { id: 'r', imp: imps as BidRequest['imp'], site: { domain: 'www.site.com', page: 'https://www.site.com/a' }, ...extra, ext: { prebid: { ...(floors && { floors }), ...extra.ext?.prebid } } };
}

const GROUP = {
  currency: 'USD',
  schema: { fields: ['mediaType', 'size', 'domain'] },
  values: { 'banner|300x250|www.site.com': 1.5, 'banner|*|www.site.com': 1.2, '*|300x250|*': 0.8, '*|*|*': 0.5 },
  default: 0.1,
};

function resolve(req: BidRequest, ctx: TestContext, random?: () => number): BidRequest {
  const hook = hooks(random)['processed-auction-request']!['resolve-floors']!;
  return apply({ request: req }, hook({ request: req }, ctx)).request;
}

describe('prebid.floors: rules and signalling', () => {
  it('looks keys up from the most specific, wildcards replacing right-most fields first', () => {
    const group = compileGroup({ schema: { fields: ['mediaType', 'domain'], delimiter: '|' }, values: { 'BANNER|*': 2, '*|www.site.com': 3, '*|*': 1 } }, []);
    expect(findRule(group, ['banner', 'www.site.com'])).to.deep.equal({ rule: 'banner|*', value: 2 });
    expect(findRule(group, ['video', 'www.site.com'])).to.deep.equal({ rule: '*|www.site.com', value: 3 });
    expect(findRule(group, ['video', 'other.com'])).to.deep.equal({ rule: '*|*', value: 1 });
  });

  it('orders one-wildcard keys as Go weighs them: right-most first up to five fields, overflowed weights from six, made order from seven', () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`);
    const key = (n: number, star: number) => Array.from({ length: n }, (_, i) => (i === star ? '*' : `v${i}`)).join('|');
    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    const pick = (n: number, stars: number[]) => findRule(compileGroup({ schema: { fields: fields(n) }, values: Object.fromEntries(stars.map((star) => [key(n, star), star])) }, []), values(n))!.value;
    // Five fields: weights 2^32..2^28, a wildcard on the right is tried first.
    expect(pick(5, [0, 4])).to.equal(4);
    // Six: field 0 weighs 1<<64 = 0, field 1 1<<63 (the lowest int), fields 2..5 2^62..2^59.
    expect(pick(6, [0, 5])).to.equal(0);
    expect(pick(6, [0, 1])).to.equal(1);
    expect(pick(6, [2, 5])).to.equal(5);
    // Seven: every weight 0, the order they were made in (field 0 first).
    expect(pick(7, [0, 6])).to.equal(0);
    expect(pick(7, [3, 6])).to.equal(3);
  });

  it('sets imp.bidfloor, bidfloorcur and imp.ext.prebid.floors from the matched rule, and the resolved rules in ext.prebid.floors', () => {
    const out = resolve(request({ data: { modelgroups: [GROUP] } }), context());
    expect(out.imp[0]).to.include({ bidfloor: 1.5, bidfloorcur: 'USD' });
    expect(out.imp[0]!.ext!.prebid).to.deep.equal({ floors: { floorrule: 'banner|300x250|www.site.com', floorrulevalue: 1.5, floorvalue: 1.5 } });
    const floors = (out.ext!.prebid as Json).floors;
    expect(floors).to.include({ location: 'request', fetchstatus: 'none', skipped: false });
    expect(floors.data.modelgroups).to.have.length(1);
  });

  it('uses the group default when no rule matches, without a rule in imp.ext', () => {
    const group = { schema: { fields: ['mediaType'] }, values: { video: 4 }, default: 0.7 };
    const out = resolve(request({ data: { modelgroups: [group] } }), context());
    expect(out.imp[0]).to.include({ bidfloor: 0.7, bidfloorcur: 'USD' });
    expect(out.imp[0]!.ext).to.equal(undefined);
  });

  it('raises a floor to floormin, converting floormincur to the floors currency', () => {
    const out = resolve(request({ floormin: 2, floormincur: 'EUR', data: { modelgroups: [GROUP] } }), context());
    // 2 EUR = 2.5 USD, above the 1.5 rule.
    expect(out.imp[0]).to.include({ bidfloor: 2.5, bidfloorcur: 'USD' });
    expect((out.imp[0]!.ext!.prebid as Json).floors).to.deep.equal({ floorrule: 'banner|300x250|www.site.com', floorrulevalue: 1.5, floorvalue: 2.5 });
  });

  it('reports a floor minimum it cannot convert and leaves the imp alone', () => {
    const ctx = context();
    const out = resolve(request({ floormin: 2, floormincur: 'JPY', data: { modelgroups: [GROUP] } }), ctx);
    expect(out.imp[0]!.bidfloor).to.equal(undefined);
    const hook = hooks()['processed-auction-request']!['resolve-floors']!;
    const result = hook({ request: request({ floormin: 2, floormincur: 'JPY', data: { modelgroups: [GROUP] } }) }, context()) as HookResult<unknown>;
    expect(result.errors!.prebid![0]!.message).to.equal("Error in getting FloorMin value : 'Currency conversion rate not found: 'JPY' => 'USD''");
  });

  it('skips floors at skiprate 100: nothing signalled, skipped reported', () => {
    const out = resolve(request({ skiprate: 100, data: { modelgroups: [GROUP] } }), context());
    expect(out.imp[0]!.bidfloor).to.equal(undefined);
    expect((out.ext!.prebid as Json).floors.skipped).to.equal(true);
  });

  it('picks a model group by weight', () => {
    const light = { ...GROUP, modelversion: 'light', modelweight: 10, values: { '*|*|*': 1 } };
    const heavy = { ...GROUP, modelversion: 'heavy', modelweight: 90, values: { '*|*|*': 9 } };
    // Draws over 0..100: 10 or less is the lighter group, the rest the heavier.
    expect(resolve(request({ data: { modelgroups: [heavy, light] } }), context(), () => 0.05).imp[0]!.bidfloor).to.equal(1);
    expect(resolve(request({ data: { modelgroups: [heavy, light] } }), context(), () => 0.5).imp[0]!.bidfloor).to.equal(9);
  });

  it('reports invalid groups and rule keys with Prebid Server texts and uses what is valid', () => {
    const bad = { modelversion: 'bad', schema: { fields: ['colour'] }, values: { red: 3 } };
    const good = { modelversion: 'good', schema: { fields: ['mediaType', 'domain'] }, values: { 'banner|www.site.com': 2, banner: 9 } };
    const hook = hooks()['processed-auction-request']!['resolve-floors']!;
    const req = request({ data: { modelgroups: [bad, good] } });
    const result = hook({ request: req }, context()) as HookResult<{ request: BidRequest }>;
    expect(result.errors!.prebid!.map((e) => e.message)).to.deep.equal([
      "Invalid schema dimension provided = 'colour' in Schema Fields = '[colour]'",
      "Invalid Floor Rule = 'banner' for Schema Fields = '[mediaType domain]'",
    ]);
    expect(apply({ request: req }, result).request.imp[0]!.bidfloor).to.equal(2);
  });

  it('names a member of the wrong type', () => {
    const hook = hooks()['processed-auction-request']!['resolve-floors']!;
    const result = hook({ request: request({ data: { modelgroups: [{ schema: { fields: ['mediaType'] }, values: { banner: 'high' } }] } }) }, context()) as HookResult<unknown>;
    expect(result.errors!.prebid!.map((e) => e.message)).to.include('ext.prebid.floors.data.modelgroups[0].values["banner"] must be a number');
  });

  it('does nothing when the account switches floors off, and says so as an error (code 999), debug or not', () => {
    const hook = hooks()['processed-auction-request']!['resolve-floors']!;
    for (const debug of [true, false]) {
      const ctx = context({ price_floors: { enabled: false } }, { debug });
      const result = hook({ request: request({ data: { modelgroups: [GROUP] } }) }, ctx) as HookResult<unknown>;
      expect(result.action).to.equal(undefined);
      expect(result.errors).to.deep.equal({ prebid: [{ code: 999, message: 'Floors feature is disabled at account or in the request' }] });
      expect(ctx.warnings.prebid ?? []).to.deep.equal([]);
    }
  });

  it('says floors are off when the request switches them off, with no rules of its own too', () => {
    const hook = hooks()['processed-auction-request']!['resolve-floors']!;
    const result = hook({ request: request({ enabled: false }) }, context()) as HookResult<unknown>;
    expect(result.errors!.prebid!.map((e) => e.message)).to.deep.equal(['Floors feature is disabled at account or in the request']);
    const bare = { ...request({}), ext: {} } as BidRequest;
    const off = hook({ request: bare }, context({ price_floors: { enabled: false } })) as HookResult<unknown>;
    expect(off.errors!.prebid!.map((e) => e.message)).to.deep.equal(['Floors feature is disabled at account or in the request']);
  });

  it('uses the account rules over the request rules, keeping the request enforcement', () => {
    const accountRules = { data: { currency: 'EUR', modelgroups: [{ schema: { fields: ['mediaType'] }, values: { banner: 3 } }] } };
    const ctx = context({}, { accountConfig: { rules: accountRules } });
    const out = resolve(request({ enforcement: { enforcepbs: false }, data: { modelgroups: [GROUP] } }), ctx);
    expect(out.imp[0]).to.include({ bidfloor: 3, bidfloorcur: 'EUR' });
    const floors = (out.ext!.prebid as Json).floors;
    expect(floors).to.include({ location: 'account' });
    expect(floors.enforcement).to.deep.equal({ enforcepbs: false });
  });

  it('takes the provider floor minimum in the request currency, a code spelt in lower case being the same currency (Go GetRate)', () => {
    const accountRules = { floormin: 2, floormincur: 'eur', data: { currency: 'EUR', modelgroups: [{ schema: { fields: ['mediaType'] }, values: { banner: 1 } }] } };
    const ctx = context({}, { accountConfig: { rules: accountRules } });
    const out = resolve(request({ floormincur: 'EUR', data: { modelgroups: [GROUP] } }), ctx);
    expect(out.imp[0]).to.include({ bidfloor: 2, bidfloorcur: 'EUR' });
    expect((out.ext!.prebid as Json).floors).to.include({ floormin: 2, floormincur: 'EUR' });
  });

  it('reads schema fields from the request: bundle, country, deviceType, channel, gptSlot, adUnitCode, pubDomain', () => {
    const group = { schema: { fields: ['bundle', 'country', 'deviceType'] }, values: { 'com.app|usa|phone': 2 } };
    const app = { app: { bundle: 'com.app' }, device: { geo: { country: 'USA' }, ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0)' } };
    const req: BidRequest = { ...request({ data: { modelgroups: [group] } }), ...app, site: undefined } as BidRequest;
    delete (req as Json).site;
    expect(resolve(req, context()).imp[0]!.bidfloor).to.equal(2);
    const slots = { schema: { fields: ['gptSlot', 'adUnitCode', 'channel', 'pubDomain'] }, values: { '/1/slot|gpid-1|web|pub.com': 4 } };
    const imp = { id: 'imp-1', banner: {}, ext: { gpid: 'gpid-1', data: { adserver: { name: 'gam', adslot: '/1/slot' } } } };
    const req2 = request({ data: { modelgroups: [slots] } }, [imp], { site: { publisher: { domain: 'pub.com' } }, ext: { prebid: { channel: { name: 'web' } } } });
    // Four fields: over Prebid Server's default limit of 3 until the account raises it.
    expect(resolve(req2, context()).imp[0]!.bidfloor).to.equal(undefined);
    expect(resolve(req2, context({ price_floors: { max_schema_dims: 4 } })).imp[0]!.bidfloor).to.equal(4);
  });

  it('reads the rules with member names in any case, as Go decodes them (floorMin, modelGroups, enforcePBS), and shows them in lower case', () => {
    const camel = { floorMin: 2.5, enforcement: { enforcePBS: false }, data: { modelGroups: [{ Currency: 'USD', modelVersion: 'v', schema: { Fields: ['mediaType'] }, Values: { banner: 1 } }] } };
    const out = resolve(request(camel), context());
    expect(out.imp[0]).to.include({ bidfloor: 2.5, bidfloorcur: 'USD' });
    const floors = (out.ext!.prebid as Json).floors;
    expect(floors).to.include({ floormin: 2.5 });
    expect(floors.enforcement).to.deep.equal({ enforcepbs: false });
    expect(floors.data.modelgroups[0]).to.include({ currency: 'USD', modelversion: 'v' });
  });

  it('shows the rules without the zero members Go does not write back (skiprate 0, default 0, empty currency)', () => {
    const zeros = { floormin: 0, skiprate: 0, floorprovider: '', enforcement: { enforcerate: 0 }, data: { currency: '', skiprate: 0, modelgroups: [{ default: 0, skiprate: 0, schema: { fields: ['mediaType'] }, values: { banner: 1 } }] } };
    const floors = (resolve(request(zeros), context()).ext!.prebid as Json).floors;
    expect(floors).to.not.have.any.keys('floormin', 'skiprate', 'floorprovider');
    expect(floors.enforcement).to.deep.equal({});
    expect(floors.data).to.not.have.any.keys('currency', 'skiprate');
  });

  it('reads imp.ext.data and the stored request id as Go decodes them into structs: member names in any case', () => {
    const group = { schema: { fields: ['gptSlot', 'adUnitCode'] }, values: { '/2/slot|/2/slot': 6, 'gam-slot|stored-1': 7 } };
    const spelt = { id: 'imp-1', banner: {}, ext: { data: { pbAdSlot: '/2/slot' } } };
    expect(resolve(request({ data: { modelgroups: [group] } }, [spelt]), context()).imp[0]!.bidfloor).to.equal(6);
    const gam = { id: 'imp-1', banner: {}, ext: { data: { AdServer: { Name: 'gam', adSlot: 'gam-slot' } }, prebid: { StoredRequest: { ID: 'stored-1' } } } };
    expect(resolve(request({ data: { modelgroups: [group] } }, [gam]), context()).imp[0]!.bidfloor).to.equal(7);
  });

  it('leaves the rules in the request as Prebid Server leaves them once checked: keys lower-cased, bad ones gone, no default delimiter', () => {
    const group = { schema: { fields: ['mediaType', 'size'] }, values: { 'BANNER|300x250': 2, video: 4, '*|*': 1 } };
    const out = resolve(request({ data: { modelgroups: [group] } }), context());
    expect(out.imp[0]!.bidfloor).to.equal(2);
    const echoed = ((out.ext!.prebid as Json).floors as Json).data.modelgroups[0];
    expect(echoed.schema).to.deep.equal({ fields: ['mediaType', 'size'] });
    expect(echoed.values).to.deep.equal({ 'banner|300x250': 2, '*|*': 1 });
  });

  it('shows the weight 1 Prebid Server gives the chosen group when several groups have none', () => {
    const a = { modelversion: 'a', schema: { fields: ['mediaType'] }, values: { banner: 2 } };
    const b = { modelversion: 'b', schema: { fields: ['mediaType'] }, values: { banner: 3 } };
    const echoedOf = (groups: Json[]) => (((resolve(request({ data: { modelgroups: groups } }), context(), () => 0).ext!.prebid as Json).floors as Json).data.modelgroups[0]);
    expect(echoedOf([a, b])).to.include({ modelweight: 1 });
    expect(echoedOf([a])).to.not.have.property('modelweight');
  });

  it('reads a geo without a country, or a channel without a name, as the empty value, not the catch-all (as Prebid Server)', () => {
    const group = { schema: { fields: ['country', 'mediaType'] }, values: { '|banner': 2, '*|banner': 1 } };
    const noCountry = request({ data: { modelgroups: [group] } }, undefined, { device: { geo: { region: 'x' } } });
    expect(resolve(noCountry, context()).imp[0]!.bidfloor).to.equal(2);
    const noGeo = request({ data: { modelgroups: [group] } }, undefined, { device: {} });
    expect(resolve(noGeo, context()).imp[0]!.bidfloor).to.equal(1);
    const channels = { schema: { fields: ['channel', 'mediaType'] }, values: { '|banner': 3, '*|banner': 1 } };
    const nameless = request({ data: { modelgroups: [channels] } }, undefined, { ext: { prebid: { channel: { version: '1' } } } });
    expect(resolve(nameless, context()).imp[0]!.bidfloor).to.equal(3);
  });
});

describe('prebid.floors: goFixed4', () => {
  it("writes 4 decimals as Go's %.4f does: an exact tie to even, anything else as toFixed", () => {
    // Exact ties at 4 decimals are the odd multiples of 1/32.
    expect([goFixed4(1.03125), goFixed4(0.09375), goFixed4(1.00005), goFixed4(2), goFixed4(0.1)]).to.deep.equal(['1.0312', '0.0938', '1.0001', '2.0000', '0.1000']);
  });
});

describe('prebid.floors: enforcement', () => {
  function seats(...bids: Array<{ bidder: string; price: number; id: string; dealid?: string }>): SeatResult[] {
    const by = new Map<string, SeatResult>();
    for (const { bidder, price, id, dealid } of bids) {
      if (!by.has(bidder)) by.set(bidder, { bidder, adapter: bidder, bids: [], errors: [], responseTimeMs: 1 });
      by.get(bidder)!.bids.push(testAuctionBid(bidder, { id, impid: 'imp-1', price, ...(dealid && { dealid }) }));
    }
    return [...by.values()];
  }

  function run(floors: Json, all: SeatResult[], ctx: TestContext, random = () => 0): AllBidsPayload {
    const h = hooks(random);
    const resolved = apply({ request: request(floors) }, h['processed-auction-request']!['resolve-floors']!({ request: request(floors) }, ctx)).request;
    const payload: AllBidsPayload = { request: resolved, seats: all };
    return apply(payload, h['all-processed-bid-responses']!['enforce-floors']!(payload, ctx));
  }

  const RULES = { data: { modelgroups: [{ currency: 'USD', schema: { fields: ['mediaType'] }, values: { banner: 2 } }] } };

  it('drops bids under the floor with non-bid 301 and the warning, reports the floor on every bid', () => {
    const ctx = context();
    const out = run(RULES, seats({ bidder: 'alpha', price: 2.5, id: 'a' }, { bidder: 'beta', price: 1.5, id: 'b' }, { bidder: 'gamma', price: 1.995, id: 'c' }), ctx);
    expect(out.seats.map((seat) => seat.bids.map((bid) => bid.bid.id))).to.deep.equal([['a'], [], ['c']]);
    expect((out.seats[0]!.bids[0]!.bid.ext!.prebid as Json).floors).to.deep.equal({ floorCurrency: 'USD', floorRule: 'banner', floorRuleValue: 2, floorValue: 2 });
    expect(ctx.rejected.map((entry) => [entry.bid.bid.id, entry.reason])).to.deep.equal([['b', 301]]);
    expect(ctx.warnings.prebid).to.deep.equal([{ code: 10009, message: 'beta bid id b rejected - bid price 1.5000 USD is less than bid floor 2.0000 USD for imp imp-1' }]);
  });

  it('keeps every bid when enforcepbs is false, still reporting floors', () => {
    const ctx = context();
    const out = run({ ...RULES, enforcement: { enforcepbs: false } }, seats({ bidder: 'beta', price: 1, id: 'b' }), ctx);
    expect(out.seats[0]!.bids).to.have.length(1);
    expect((out.seats[0]!.bids[0]!.bid.ext!.prebid as Json).floors.floorValue).to.equal(2);
    expect(ctx.rejected).to.deep.equal([]);
  });

  it('enforces at the enforce rate: a draw at or over the rate does not enforce', () => {
    const enforced = context();
    run({ ...RULES, enforcement: { enforcerate: 50 } }, seats({ bidder: 'beta', price: 1, id: 'b' }), enforced, () => 0.3);
    expect(enforced.rejected).to.have.length(1);
    const spared = context();
    run({ ...RULES, enforcement: { enforcerate: 50 } }, seats({ bidder: 'beta', price: 1, id: 'b' }), spared, () => 0.7);
    expect(spared.rejected).to.have.length(0);
    const byAccount = context({ price_floors: { enforce_floors_rate: 20 } });
    run(RULES, seats({ bidder: 'beta', price: 1, id: 'b' }), byAccount, () => 0.3);
    expect(byAccount.rejected).to.have.length(0);
  });

  it('holds deals to floors only when the account and the request both say so (non-bid 304)', () => {
    const requestOnly = context();
    run({ ...RULES, enforcement: { floordeals: true } }, seats({ bidder: 'beta', price: 1, id: 'b', dealid: 'd1' }), requestOnly);
    expect(requestOnly.rejected).to.have.length(0);
    const both = context({ price_floors: { enforce_deal_floors: true } });
    const out = run({ ...RULES, enforcement: { floordeals: true } }, seats({ bidder: 'beta', price: 1, id: 'b', dealid: 'd1' }, { bidder: 'beta', price: 0.5, id: 'open' }), both);
    expect(both.rejected.map((entry) => [entry.bid.bid.id, entry.reason])).to.deep.equal([['b', 304], ['open', 301]]);
    expect(out.seats[0]!.bids).to.have.length(0);
  });

  it('compares in the floor currency: a USD bid against a EUR floor', () => {
    const eur = { data: { currency: 'EUR', modelgroups: [{ schema: { fields: ['mediaType'] }, values: { banner: 2 } }] } };
    const ctx = context();
    // 2.4 USD = 1.92 EUR: within the cent? no (1.93 < 2): rejected; 2.6 USD = 2.08 EUR kept.
    const out = run(eur, seats({ bidder: 'alpha', price: 2.6, id: 'a' }, { bidder: 'beta', price: 2.4, id: 'b' }), ctx);
    expect(out.seats.map((seat) => seat.bids.length)).to.deep.equal([1, 0]);
    expect(ctx.warnings.prebid![0]!.message).to.equal('beta bid id b rejected - bid price 2.4000 USD is less than bid floor 2.0000 EUR for imp imp-1');
  });

  it('drops a bid it cannot convert to the floor currency, with an error naming both', () => {
    const jpy = { data: { currency: 'JPY', modelgroups: [{ schema: { fields: ['mediaType'] }, values: { banner: 200 } }] } };
    const ctx = context();
    const out = run(jpy, seats({ bidder: 'alpha', price: 3, id: 'a' }), ctx);
    expect(out.seats[0]!.bids).to.have.length(0);
    expect(ctx.errors.prebid![0]!.message).to.contain("Currency conversion rate not found: 'USD' => 'JPY'");
  });

  it('enforces a plain imp.bidfloor without any rules, leaving the request as it is unless debug shows it', () => {
    const ctx = context();
    const h = hooks();
    const req = request(undefined, [{ id: 'imp-1', banner: {}, bidfloor: 3, bidfloorcur: 'USD' }]);
    expect(h['processed-auction-request']!['resolve-floors']!({ request: req }, ctx)).to.equal(undefined);
    const debugged = context({}, { debug: true });
    const shown = apply({ request: req }, h['processed-auction-request']!['resolve-floors']!({ request: req }, debugged)).request;
    expect((shown.ext!.prebid as Json).floors).to.deep.equal({ fetchstatus: 'none', location: 'noData' });
    const resolved = req;
    const payload = { request: resolved, seats: seats({ bidder: 'alpha', price: 2, id: 'a' }) };
    const out = apply(payload, h['all-processed-bid-responses']!['enforce-floors']!(payload, ctx));
    expect(out.seats[0]!.bids).to.have.length(0);
    expect(ctx.rejected[0]!.reason).to.equal(301);
  });

  it('sends a bidder with a bid adjustment factor its floors divided by it', () => {
    const ctx = context();
    const h = hooks();
    const req = request(RULES, undefined, { ext: { prebid: { bidadjustmentfactors: { Beta: 0.8 } } } });
    const resolved = apply({ request: req }, h['processed-auction-request']!['resolve-floors']!({ request: req }, ctx)).request;
    const share = { bidder: 'beta', adapter: 'beta', request: { ...resolved, imp: resolved.imp.map((imp) => ({ ...imp })) } };
    expect(apply(share, h['bidder-request']!['adjust-floors']!(share, ctx)).request.imp[0]!.bidfloor).to.equal(2.5);
    const other = { bidder: 'alpha', adapter: 'alpha', request: resolved };
    expect(h['bidder-request']!['adjust-floors']!(other, ctx)).to.equal(undefined);
    // Prebid Server looks the bidder up as the request spells it among lower-cased factors: `Beta` finds none.
    const capitalised = { bidder: 'Beta', adapter: 'beta', request: resolved };
    expect(h['bidder-request']!['adjust-floors']!(capitalised, ctx)).to.equal(undefined);
  });

  function enforcePlain(imp: Json, ctx: TestContext): AllBidsPayload {
    const h = hooks();
    const req = request(undefined, [{ id: 'imp-1', banner: {}, ...imp }]);
    h['processed-auction-request']!['resolve-floors']!({ request: req }, ctx);
    const payload = { request: req, seats: seats({ bidder: 'alpha', price: 20, id: 'a' }) };
    return apply(payload, h['all-processed-bid-responses']!['enforce-floors']!(payload, ctx));
  }

  it('reads a floor that names no currency in USD, OpenRTB\'s default (Prebid Server would drop the bids: a decision)', () => {
    const passes = context();
    const kept = enforcePlain({ bidfloor: 3 }, passes);
    expect(kept.seats[0]!.bids).to.have.length(1);
    expect(passes.errors.prebid ?? []).to.deep.equal([]);
    // The bid reports the floor's currency as the imp gave it: none.
    expect((kept.seats[0]!.bids[0]!.bid.ext!.prebid as Json).floors).to.deep.equal({ floorValue: 3 });
    const under = context();
    expect(enforcePlain({ bidfloor: 25 }, under).seats[0]!.bids).to.have.length(0);
    expect(under.warnings.prebid).to.deep.equal([{ code: 10009, message: 'alpha bid id a rejected - bid price 20.0000 USD is less than bid floor 25.0000 USD for imp imp-1' }]);
  });

  it('tells a floor currency that is no ISO code from one without a rate, as Go does', () => {
    const unknown = context();
    enforcePlain({ bidfloor: 3, bidfloorcur: 'XYZ' }, unknown);
    expect(unknown.errors.prebid![0]!.message).to.match(/to XYZ .* error = currency: tag is not a recognized currency$/);
    const noRate = context();
    enforcePlain({ bidfloor: 3, bidfloorcur: 'gbp' }, noRate);
    expect(noRate.errors.prebid![0]!.message).to.match(/to gbp .* error = Currency conversion rate not found: 'USD' => 'GBP'$/);
  });

  it('reports on bids what the imp carries in ext.prebid.floors, zero members left out (a floor minimum alone reports no value)', () => {
    const ctx = context();
    const rules = { data: { modelgroups: [{ schema: { fields: ['mediaType'] }, values: { video: 9 }, default: 1 }] } };
    const imp = { id: 'imp-1', banner: {}, ext: { prebid: { floors: { floorMin: 4 } } } };
    const h = hooks();
    const resolved = apply({ request: request(rules, [imp]) }, h['processed-auction-request']!['resolve-floors']!({ request: request(rules, [imp]) }, ctx)).request;
    expect(resolved.imp[0]).to.include({ bidfloor: 4, bidfloorcur: 'USD' });
    const payload = { request: resolved, seats: seats({ bidder: 'alpha', price: 5, id: 'a' }, { bidder: 'beta', price: 2, id: 'b' }) };
    const out = apply(payload, h['all-processed-bid-responses']!['enforce-floors']!(payload, ctx));
    expect((out.seats[0]!.bids[0]!.bid.ext!.prebid as Json).floors).to.deep.equal({ floorCurrency: 'USD' });
    expect(ctx.warnings.prebid).to.deep.equal([{ code: 10009, message: 'beta bid id b rejected - bid price 2.0000 USD is less than bid floor 0.0000 USD for imp imp-1' }]);
  });
});
