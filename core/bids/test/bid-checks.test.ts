import { expect } from 'chai';
import type { AuctionBid, Bid, BidRequest, MediaType, SeatResult } from '../../api/index.js';
import { testAuctionBid, testContext, type TestContext } from '../../api/testing.js';
import { auctionBidRules, checkBids, checkResponseBids, identifyBids, type BidCheckSettings, type BidValidations } from '../index.js';

type BidSpec = Partial<Bid> & { type?: MediaType; seat?: string };

const SKIP: BidValidations = { bannerCreativeMaxSize: 'skip', secureMarkup: 'skip', maxCreativeWidth: 0, maxCreativeHeight: 0 };

function settings(overrides: Partial<BidCheckSettings> = {}): BidCheckSettings {
  return { validateBids: true, validations: SKIP, externalUrl: 'https://gavel.example', vastModifiable: () => true, ...overrides };
}

function auctionBid(spec: BidSpec, index: number): AuctionBid {
  const { type = 'banner', seat, ...bid } = spec;
  return testAuctionBid('alpha', { id: `b${index}`, impid: 'imp-1', price: 1, crid: `c${index}`, w: 300, h: 250, ...bid } as Bid, seat ? { type, seat } : { type });
}

const baseRequest = (extra: Partial<BidRequest> = {}): BidRequest => ({ id: 'r', imp: [{ id: 'imp-1', banner: { format: [{ w: 300, h: 250 }] } }], site: { page: 'https://p.example' }, ...extra });

type CheckOptions = { request?: BidRequest; context?: TestContext; settings?: BidCheckSettings };

/**
 * Runs the checks over one seat of `bids`: the bidder layer's, then (the auction between them) the response's; with
 * `identify`, the ids and event tracking the auction gives the bids it keeps (`identifyBids`) in between. What is
 * left of the seat, and the context that heard the reports.
 */
function runChecks(bids: BidSpec[], options: CheckOptions, identify: boolean): { kept: AuctionBid[]; seat: SeatResult; context: TestContext } {
  const context = options.context ?? testContext();
  const request = options.request ?? baseRequest();
  const host = options.settings ?? settings();
  const rules = auctionBidRules(request, context, host);
  const seat: SeatResult = { bidder: 'alpha', adapter: 'alpha', bids: bids.map(auctionBid), errors: [], responseTimeMs: 1 };
  checkBids(seat, { bidder: 'alpha', adapter: 'alpha', request }, rules, host, context);
  if (identify) identifyBids([seat], rules, host, context);
  checkResponseBids([seat], rules, context);
  return { kept: seat.bids, seat, context };
}

const check = (bids: BidSpec[], options: CheckOptions = {}) => runChecks(bids, options, false);
const checkAndIdentify = (bids: BidSpec[], options: CheckOptions = {}) => runChecks(bids, options, true);

const ids = (bids: AuctionBid[]) => bids.map((bid) => bid.bid.id);

describe('bid checks (core/bids)', () => {
  describe("Prebid Server's bid validation", () => {
    it('drops bids without an id, an imp id or a creative id, with its messages (code 999)', () => {
      const { kept, context } = check([{ id: '' }, { impid: '' }, { crid: undefined }, {}]);
      expect(ids(kept)).to.deep.equal(['b3']);
      expect(context.errors.alpha).to.deep.equal([
        { code: 999, message: "Bid missing required field 'id'" },
        { code: 999, message: 'Bid "b1" missing required field \'impid\'' },
        { code: 999, message: 'Bid "b2" missing creative ID' },
      ]);
      expect(context.rejected.map((entry) => entry.reason)).to.deep.equal([300, 300, 300]);
    });

    it('drops a negative price, and a zero price without a deal; explains them only in debug', () => {
      const quiet = check([{ price: -1 }, { price: 0 }, { price: 0, dealid: 'd' }]);
      expect(ids(quiet.kept)).to.deep.equal(['b2']);
      expect(quiet.context.errors).to.deep.equal({});
      expect(quiet.context.rejected).to.have.length(2);
      const debug = check([{ price: -1 }, { price: 0 }], { context: testContext({ debug: true }) });
      expect(debug.context.errors.alpha!.map((error) => error.message)).to.deep.equal([
        'Bid "b0" does not contain a positive (or zero if there is a deal) \'price\'',
        'Bid "b1" does not contain positive \'price\' which is required since there is no deal set for this bid',
      ]);
    });

    it("drops the seat's bids when the auction currency is not one the request allows", () => {
      const { kept, seat } = check([{}], { request: baseRequest({ cur: ['EUR'] }), context: testContext({ currency: 'USD' }) });
      expect(kept).to.deep.equal([]);
      expect(seat.errors).to.deep.equal([{ code: 999, message: "Bid currency is not allowed. Was 'USD', wants: ['EUR']" }]);
      expect(check([{}], { request: baseRequest({ cur: ['usd'] }) }).kept).to.have.length(1);
    });

    it('can be switched off (as Prebid Server recorded its fixtures), alternate seats included, keeping the other checks', () => {
      const host = settings({ validateBids: false, validations: { ...SKIP, bannerCreativeMaxSize: 'enforce', maxCreativeWidth: 100, maxCreativeHeight: 100 } });
      const { kept } = check([{ price: 0, crid: undefined, w: 50, h: 50 }, { w: 300 }, { w: 50, h: 50, seat: 'other' }], { settings: host });
      expect(ids(kept)).to.deep.equal(['b0', 'b2']);
      expect(check([{ seat: 'other' }]).kept).to.deep.equal([]);
    });
  });

  describe('the seats a response keeps', () => {
    it('names the seats that lost bids to the response checks (DSA, size, secure markup), not to the bidder-layer ones', () => {
      const sized: BidValidations = { ...SKIP, bannerCreativeMaxSize: 'enforce', maxCreativeWidth: 300, maxCreativeHeight: 250 };
      const dsaRequired = baseRequest({ regs: { ext: { dsa: { dsarequired: 2 } } } });
      expect(check([{ w: 728 }], { settings: settings({ validations: sized }) }).seat.checkedSeats).to.deep.equal(['alpha']);
      expect(check([{}], { request: dsaRequired }).seat.checkedSeats).to.deep.equal(['alpha']);
      // Kept bids and bids refused at the bidder layer leave no mark.
      expect(check([{}, { crid: undefined }], { settings: settings({ validations: sized }) }).seat.checkedSeats).to.equal(undefined);
    });
  });

  describe('creative checks (host bid validations, the account over them)', () => {
    const sized = (mode: 'warn' | 'enforce'): BidValidations => ({ ...SKIP, bannerCreativeMaxSize: mode, maxCreativeWidth: 300, maxCreativeHeight: 250 });

    it('enforce drops a banner larger than the maximum (code 3, seat non-bid 351); video is not checked', () => {
      const { kept, context } = check([{ w: 728, h: 90 }, { w: 300, h: 250 }, { w: 970, type: 'video' }], { settings: settings({ validations: sized('enforce') }) });
      expect(ids(kept)).to.deep.equal(['b1', 'b2']);
      expect(context.errors.alpha).to.deep.equal([{ code: 3, message: 'bidResponse rejected: size WxH' }]);
      expect(context.rejected.map((entry) => entry.reason)).to.deep.equal([351]);
    });

    it('warn keeps the bid and reports it', () => {
      const { kept, context } = check([{ w: 728, h: 90 }], { settings: settings({ validations: sized('warn') }) });
      expect(kept).to.have.length(1);
      expect(context.errors.alpha).to.deep.equal([{ code: 3, message: 'bidResponse creative size warning: size WxH larger than AdUnit sizes' }]);
    });

    it("reports a bid under an alternate bidder code under that seat, as Prebid Server reports its response's seats", () => {
      const codes = { enabled: true, bidders: { alpha: { enabled: true, allowedbiddercodes: ['*'] } } };
      const request = baseRequest({ ext: { prebid: { alternatebiddercodes: codes } } });
      const warned = check([{ w: 728, seat: 'beta' }], { request, settings: settings({ validations: sized('warn') }) });
      expect(warned.context.errors).to.deep.equal({ beta: [{ code: 3, message: 'bidResponse creative size warning: size WxH larger than AdUnit sizes' }] });
      const enforced = check([{ w: 728, seat: 'beta' }], { request, settings: settings({ validations: sized('enforce') }) });
      expect(enforced.kept).to.deep.equal([]);
      expect(enforced.context.errors).to.deep.equal({ beta: [{ code: 3, message: 'bidResponse rejected: size WxH' }] });
    });

    it("an account's validations replace the host's", () => {
      const account = { id: 'a', validations: { banner_creative_max_size: 'enforce' as const } };
      const host = settings({ validations: { ...SKIP, maxCreativeWidth: 100, maxCreativeHeight: 100 } });
      expect(check([{}], { settings: host, context: testContext({ account }) }).kept).to.deep.equal([]);
      expect(check([{}], { settings: host }).kept).to.have.length(1);
    });

    it('secure markup: http-only markup is dropped for a secure imp (352), kept with https or for an imp marked secure: 0', () => {
      const host = settings({ validations: { ...SKIP, secureMarkup: 'enforce' } });
      const insecure = { adm: '<img src="http://t.example/p">' };
      const { kept, context } = check([insecure, { adm: '<img src="http://a" data-x="https://b">' }, { adm: '<img src="http%3A%2F%2Ft">' }], { settings: host });
      expect(ids(kept)).to.deep.equal(['b1']);
      expect(context.errors.alpha![0]).to.deep.equal({ code: 3, message: 'bidResponse rejected: insecure creative in secure context' });
      expect(context.rejected.map((entry) => entry.reason)).to.deep.equal([352, 352]);
      const plainImp = baseRequest({ imp: [{ id: 'imp-1', secure: 0, banner: { w: 300, h: 250 } }] });
      expect(check([insecure], { settings: host, request: plainImp }).kept).to.have.length(1);
      const warned = check([insecure], { settings: settings({ validations: { ...SKIP, secureMarkup: 'warn' } }) });
      expect(warned.kept).to.have.length(1);
      expect(warned.context.errors.alpha).to.deep.equal([{ code: 3, message: 'bidResponse warning: insecure creative in secure context' }]);
    });
  });

  describe('alternate bidder codes', () => {
    const request = (codes: unknown) => baseRequest({ ext: { prebid: { alternatebiddercodes: codes } } });

    it('keeps bids under the bidder own name in any case, and under allowed codes', () => {
      const codes = { enabled: true, bidders: { Alpha: { enabled: true, allowedbiddercodes: ['groupm'] } } };
      const { kept } = check([{ seat: 'ALPHA' }, { seat: 'groupm' }], { request: request(codes) });
      expect(ids(kept)).to.deep.equal(['b0', 'b1']);
      expect(check([{ seat: 'other' }], { request: request({ enabled: true, bidders: { alpha: { enabled: true } } }) }).kept).to.have.length(1);
      expect(check([{ seat: 'other' }], { request: request({ enabled: true, bidders: { alpha: { enabled: true, allowedbiddercodes: ['*'] } } }) }).kept).to.have.length(1);
    });

    it("drops the others with Prebid Server's warnings (10005)", () => {
      const cases: Array<[unknown, string]> = [
        [undefined, 'alternateBidderCodes disabled for "alpha", rejecting bids for "groupm"'],
        [{ enabled: true }, 'alternateBidderCodes not defined for adapter "alpha", rejecting bids for "groupm"'],
        [{ enabled: true, bidders: { beta: { enabled: true } } }, 'alternateBidderCodes not defined for adapter "alpha", rejecting bids for "groupm"'],
        [{ enabled: true, bidders: { alpha: { enabled: false } } }, 'alternateBidderCodes disabled for "alpha", rejecting bids for "groupm"'],
        [{ enabled: true, bidders: { alpha: { enabled: true, allowedbiddercodes: ['other'] } } }, 'invalid biddercode "groupm" sent by adapter "alpha"'],
      ];
      for (const [codes, message] of cases) {
        const { kept, context } = check([{ seat: 'groupm' }], { request: request(codes) });
        expect(kept, message).to.deep.equal([]);
        expect(context.warnings.alpha).to.deep.equal([{ code: 10005, message }]);
      }
    });

    it("uses the account's codes when the request has none", () => {
      const account = { id: 'a', alternatebiddercodes: { enabled: true, bidders: { alpha: { enabled: true, allowedbiddercodes: ['groupm'] } } } };
      expect(check([{ seat: 'groupm' }], { context: testContext({ account }) }).kept).to.have.length(1);
    });
  });

  describe('DSA', () => {
    const dsaRequest = (dsa: unknown) => baseRequest({ regs: { ext: { dsa } } });
    const bidDsa = (dsa: unknown): BidSpec => ({ ext: { dsa } });

    it('refuses a bid without ext.dsa when the request requires one (2 or 3), with a warning (10010)', () => {
      for (const required of [2, 3]) {
        const { kept, context } = check([{}, bidDsa({ adrender: 1 })], { request: dsaRequest({ dsarequired: required }) });
        expect(ids(kept)).to.deep.equal(['b1']);
        expect(context.warnings.alpha).to.deep.equal([{ code: 10010, message: 'bid rejected: DSA object missing when required' }]);
      }
      expect(check([{}], { request: dsaRequest({ dsarequired: 1 }) }).kept).to.have.length(1);
    });

    it('checks behalf and paid lengths and who renders', () => {
      const long = 'x'.repeat(101);
      const cases: Array<[unknown, BidSpec, string]> = [
        [{ dsarequired: 1 }, bidDsa({ behalf: long }), 'DSA behalf exceeds limit of 100 chars'],
        [{ dsarequired: 1 }, bidDsa({ paid: long }), 'DSA paid exceeds limit of 100 chars'],
        [{ pubrender: 0 }, bidDsa({ adrender: 0 }), 'DSA publisher and buyer both signal will not render'],
        [{ pubrender: 2 }, bidDsa({ adrender: 1 }), 'DSA publisher and buyer both signal will render'],
      ];
      for (const [dsa, bid, message] of cases) {
        const { kept, context } = check([bid], { request: dsaRequest(dsa) });
        expect(kept, message).to.deep.equal([]);
        expect(context.warnings.alpha![0]!.message).to.equal(`bid rejected: ${message}`);
      }
      expect(check([bidDsa({ adrender: 1 })], { request: dsaRequest({ pubrender: 0 }) }).kept).to.have.length(1);
    });

    it("writes the account's default DSA object into a request that has none (with gdpr_only, only where GDPR is enforced)", () => {
      const account = { id: 'a', privacy: { dsa: { default: '{"dsarequired":2,"pubrender":1}', gdpr_only: true } } };
      const underGdpr = baseRequest({ regs: { ext: { gdpr: 1 } } });
      auctionBidRules(underGdpr, testContext({ account, privacy: { gdprApplies: true } }), settings());
      expect(underGdpr.regs).to.deep.equal({ ext: { gdpr: 1, dsa: { dsarequired: 2, pubrender: 1 } } });
      const outside = baseRequest();
      auctionBidRules(outside, testContext({ account }), settings());
      expect(outside.regs).to.equal(undefined);
      const own = baseRequest({ regs: { ext: { gdpr: 1, dsa: { dsarequired: 1 } } } });
      auctionBidRules(own, testContext({ account, privacy: { gdprApplies: true } }), settings());
      expect(own.regs!.ext!.dsa).to.deep.equal({ dsarequired: 1 });
    });

    it('follows GDPR as enforced for gdpr_only, not the raw regs.gdpr signal (Prebid Server gives its writer GDPREnforced)', () => {
      const account = { id: 'a', privacy: { dsa: { default: '{"dsarequired":2}', gdpr_only: true } } };
      // Signalled, but the host does not enforce GDPR: no default.
      const signalledOnly = baseRequest({ regs: { ext: { gdpr: 1 } } });
      auctionBidRules(signalledOnly, testContext({ account, privacy: { gdprApplies: false } }), settings());
      expect(signalledOnly.regs).to.deep.equal({ ext: { gdpr: 1 } });
      // No signal, but GDPR enforced by the host's guess (an EEA country): the default.
      const byGeo = baseRequest({ user: { geo: { country: 'FRA' } } });
      auctionBidRules(byGeo, testContext({ account, privacy: { gdprApplies: true } }), settings());
      expect(byGeo.regs).to.deep.equal({ ext: { dsa: { dsarequired: 2 } } });
    });

    it('writes the default as Prebid Server unpacks it: its four members only, transparency entries trimmed', () => {
      const text = JSON.stringify({ dsarequired: 2, pubrender: 1, datatopub: 0, extra: 5, transparency: [{ domain: 'a.com', dsaparams: [1, 2], other: 1 }, { domain: '', dsaparams: [] }] });
      const request = baseRequest();
      auctionBidRules(request, testContext({ account: { id: 'a', privacy: { dsa: { default: text } } } }), settings());
      expect(request.regs!.ext!.dsa).to.deep.equal({ dsarequired: 2, pubrender: 1, datatopub: 0, transparency: [{ domain: 'a.com', dsaparams: [1, 2] }, {}] });
      // Each request gets its own copy.
      const second = baseRequest();
      auctionBidRules(second, testContext({ account: { id: 'a', privacy: { dsa: { default: text } } } }), settings());
      expect(second.regs!.ext!.dsa).to.not.equal(request.regs!.ext!.dsa);
      // A member of the wrong type: Prebid Server cannot unpack the default, so none is written.
      const wrong = baseRequest();
      auctionBidRules(wrong, testContext({ account: { id: 'a', privacy: { dsa: { default: '{"dsarequired":"2"}' } } } }), settings());
      expect(wrong.regs).to.equal(undefined);
    });

    it('counts the 100-character limits of behalf and paid in UTF-8 bytes, as Prebid Server does', () => {
      const request = dsaRequest({ dsarequired: 1 });
      expect(check([bidDsa({ behalf: 'é'.repeat(50) })], { request }).kept).to.have.length(1);
      const { kept, context } = check([bidDsa({ paid: 'é'.repeat(51) })], { request });
      expect(kept).to.deep.equal([]);
      expect(context.warnings.alpha![0]!.message).to.equal('bid rejected: DSA paid exceeds limit of 100 chars');
    });
  });

  describe('bid ids and event tracking', () => {
    it('gives a bid its id before the response checks, which may still drop it (its id taken, as in Prebid Server)', () => {
      let next = 0;
      const validations: BidValidations = { ...SKIP, bannerCreativeMaxSize: 'enforce', maxCreativeWidth: 300, maxCreativeHeight: 250 };
      const { kept } = checkAndIdentify([{ w: 600 }, {}], { settings: settings({ validations, newBidId: (bidder) => `${bidder}-${++next}` }) });
      expect(kept.map((bid) => bid.generatedBidId)).to.deep.equal(['alpha-2']);
    });

    it('leaves ids and tracking to the auction: the checks alone give none (floors and category mapping drop bids first)', () => {
      const request = baseRequest({ ext: { prebid: { events: {} } } });
      const { kept } = check([{}], { request, settings: settings({ newBidId: () => 'gen-1' }) });
      expect(kept[0]!.generatedBidId).to.equal(undefined);
      expect(kept[0]!.events).to.equal(undefined);
    });

    it('gives each kept bid the host id; a generator that fails is reported once per bid under the namespace', () => {
      let next = 0;
      const { kept } = checkAndIdentify([{}, { crid: undefined }, {}], { settings: settings({ newBidId: (bidder) => `${bidder}-${++next}` }) });
      expect(kept.map((bid) => bid.generatedBidId)).to.deep.equal(['alpha-1', 'alpha-2']);
      const failing = checkAndIdentify([{}], { settings: settings({ newBidId: () => { throw new Error('no entropy'); } }) });
      expect(failing.kept[0]!.generatedBidId).to.equal(undefined);
      expect(failing.context.errors.prebid).to.deep.equal([{ code: 999, message: 'Error generating bid.ext.prebid.bidid' }]);
    });

    it("adds event URLs (with the host's bid id) when the request asks for events, and nothing otherwise", () => {
      const request = baseRequest({ ext: { prebid: { events: {}, integration: 'web' } } });
      const context = testContext({ accountId: 'acct', now: 1_700_000_000_123.4, receivedAt: 1_700_000_000_123.4 });
      const { kept } = checkAndIdentify([{}], { request, context, settings: settings({ newBidId: () => 'gen-1' }) });
      expect(kept[0]!.events).to.deep.equal({
        win: 'https://gavel.example/event?t=win&b=gen-1&a=acct&bidder=alpha&int=web&ts=1700000000123',
        imp: 'https://gavel.example/event?t=imp&b=gen-1&a=acct&bidder=alpha&int=web&ts=1700000000123',
      });
      expect(checkAndIdentify([{}]).kept[0]!.events).to.equal(undefined);
      const account = { id: 'acct', events: { enabled: true } };
      expect(checkAndIdentify([{}], { context: testContext({ account, accountId: 'acct' }) }).kept[0]!.events).to.not.equal(undefined);
    });

    it('puts an impression tracker into the VAST of video bids whose bidder allows it, wrapping a nurl', () => {
      const request = baseRequest({ ext: { prebid: { events: {} } } });
      const context = testContext({ accountId: 'acct', receivedAt: 1000, now: 1000 });
      const { kept } = checkAndIdentify([{ type: 'video', adm: '<VAST><Ad><InLine><Impression></Impression></InLine></Ad></VAST>' }, { type: 'video', adm: undefined, nurl: 'https://dsp.example/vast' }], { request, context });
      expect(kept[0]!.bid.adm).to.equal('<VAST><Ad><InLine><Impression><![CDATA[https://gavel.example/event?t=imp&b=b0&a=acct&bidder=alpha&f=b&ts=1000]]></Impression></InLine></Ad></VAST>');
      expect(kept[1]!.bid.adm).to.include('<VASTAdTagURI><![CDATA[https://dsp.example/vast]]></VASTAdTagURI><Impression><![CDATA[https://gavel.example/event?t=imp&b=b1');
      expect(kept[0]!.events).to.equal(undefined);
      const untouched = checkAndIdentify([{ type: 'video', adm: '<VAST><Impression></Impression></VAST>' }], { request, context, settings: settings({ vastModifiable: () => false }) });
      expect(untouched.kept[0]!.bid.adm).to.equal('<VAST><Impression></Impression></VAST>');
    });
  });
});
