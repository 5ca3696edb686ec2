import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { bannerRequest, getJson, postJson, startGavel, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';

/**
 * Every publisher setting takes effect: for each, the request that sets it, the answer that shows it did, and the
 * same request without it. Real bidders (the generic `ortb` adapter, and a third-party adapter that answers under
 * other seats) on the simulated bidder; the embedded bid cache.
 */

type Json = Record<string, any>;

const seatEcho = fileURLToPath(new URL('../fixtures/adapters/seat-echo/', import.meta.url));
const VAST = '<VAST version="3.0"><Ad><InLine><AdSystem>mock</AdSystem><Impression><![CDATA[https://dsp.example/imp]]></Impression></InLine></Ad></VAST>';

/** name -> simulated-bidder query (see scripts/demo/simulated-bidder.ts). */
const BIDDERS: Record<string, string> = {
  banner2: 'name=banner2&price=2.75',
  deal: 'name=deal&price=1.5&dealid=deal-1',
  video: `name=video&price=18&mtype=2&dur=20&cat=IAB17&adm=${encodeURIComponent(VAST)}`,
  many: 'name=many&prices=3,2.5,2,1.5',
  nocrid: 'name=nocrid&price=2&nocrid=1',
  zero: 'name=zero&price=0',
  zerodeal: 'name=zerodeal&price=0&dealid=free-deal',
  big: 'name=big&price=1&w=970&h=250',
  insecure: `name=insecure&price=1&adm=${encodeURIComponent('<img src="http://tracker.example/p.gif">')}`,
  dsa: `name=dsa&price=1&ext=${encodeURIComponent(JSON.stringify({ dsa: { behalf: 'Advertiser', paid: 'Advertiser', adrender: 1 } }))}`,
  native: 'name=native&price=1.2&mtype=4&native=echo',
  failing: 'name=failing&status=500',
};

describe('publisher settings, end to end', () => {
  let mock: MockBidder;
  let gavel: RunningGavel;
  const auction = async (body: Json, url = gavel.url): Promise<Json> => {
    const { status, json, text } = await postJson(`${url}/openrtb2/auction`, body);
    expect(status, text).to.equal(200);
    return json;
  };
  const bidsOf = (response: Json, seat: string): Json[] => response.seatbid?.find((entry: Json) => entry.seat === seat)?.bid ?? [];
  const targetingOf = (response: Json, seat: string, index = 0): Json => bidsOf(response, seat)[index]?.ext?.prebid?.targeting ?? {};
  const request = (bidders: string[], ext: Json = {}, extra: Json = {}): Json =>
    bannerRequest(Object.fromEntries(bidders.map((name) => [name, {}])), { ext: { prebid: ext }, ...extra });

  before(async () => {
    mock = await startMockBidder();
    const bidders = Object.fromEntries(Object.entries(BIDDERS).map(([name, query]) => [name, { adapter: 'ortb', endpoint: `${mock.url}/rtb?${query}` }]));
    bidders.agency = { adapter: 'seatecho', endpoint: `${mock.url}/rtb?name=agency&seat=groupm&price=1.1` } as never;
    gavel = await startGavel({ bidders, plugins: [seatEcho], server: { externalUrl: 'https://gavel.example' } });
  });
  after(async () => {
    await gavel?.close();
    await mock?.close();
  });

  describe('targeting options', () => {
    it('mediatypepricegranularity buckets each media type by its own granularity', async () => {
      const videoImp = { id: 'v', video: { mimes: ['video/mp4'], w: 640, h: 360 }, ext: { video: {} } };
      const body = (targeting: Json) => request([], { targeting }, { imp: [videoImp] });
      const fiveDollarSteps = { video: { precision: 2, ranges: [{ max: 50, increment: 5 }] } };
      expect(targetingOf(await auction(body({ pricegranularity: 'med', mediatypepricegranularity: fiveDollarSteps })), 'video').hb_pb).to.equal('15.00');
      expect(targetingOf(await auction(body({ pricegranularity: 'med' })), 'video').hb_pb).to.equal('18.00');
    });

    it('preferdeals makes a deal win over a higher bid without one', async () => {
      const with_ = await auction(request(['banner2', 'deal'], { targeting: { preferdeals: true } }));
      expect(targetingOf(with_, 'deal')).to.include({ hb_bidder: 'deal', hb_deal: 'deal-1', hb_pb: '1.50' });
      expect(targetingOf(with_, 'banner2')).to.not.have.property('hb_bidder');
      const without = await auction(request(['banner2', 'deal'], { targeting: {} }));
      expect(targetingOf(without, 'banner2')).to.include({ hb_bidder: 'banner2', hb_pb: '2.70' });
    });

    it('prefix replaces hb in every key', async () => {
      const with_ = targetingOf(await auction(request(['banner2'], { targeting: { prefix: 'pbs' } })), 'banner2');
      expect(with_).to.include({ pbs_pb: '2.70', pbs_bidder: 'banner2', pbs_pb_banner2: '2.70' });
      expect(Object.keys(with_).every((key) => key.startsWith('pbs_'))).to.equal(true);
      expect(targetingOf(await auction(request(['banner2'], { targeting: {} })), 'banner2')).to.include({ hb_pb: '2.70' });
    });

    it('alwaysincludedeals keys deal bids per bidder even when bidder keys are off', async () => {
      const targeting = { includebidderkeys: false };
      const with_ = await auction(request(['banner2', 'deal'], { targeting: { ...targeting, alwaysincludedeals: true } }));
      expect(targetingOf(with_, 'deal')).to.deep.include({ hb_pb_deal: '1.50', hb_deal_deal: 'deal-1' });
      const without = await auction(request(['banner2', 'deal'], { targeting }));
      expect(targetingOf(without, 'deal')).to.deep.equal({});
    });

    it('includeformat adds hb_format', async () => {
      expect(targetingOf(await auction(request(['banner2'], { targeting: { includeformat: true } })), 'banner2')).to.include({ hb_format: 'banner' });
      expect(targetingOf(await auction(request(['banner2'], { targeting: {} })), 'banner2')).to.not.have.property('hb_format');
    });

    it('includebrandcategory with durationrangesec keys hb_pb_cat_dur on the auction endpoint; appendbiddernames adds the bidder', async () => {
      const videoImp = { id: 'v', video: { mimes: ['video/mp4'], w: 640, h: 360 }, ext: { video: {} } };
      const brand = { includebrandcategory: { primaryadserver: 1, withcategory: true, translatecategories: false }, durationrangesec: [15, 30] };
      const with_ = targetingOf(await auction(request([], { targeting: brand }, { imp: [videoImp] })), 'video');
      expect(with_).to.include({ hb_pb_cat_dur: '18.00_IAB17_30s', hb_pb_cat_dur_video: '18.00_IAB17_30s' });
      const appended = targetingOf(await auction(request([], { targeting: { ...brand, appendbiddernames: true } }, { imp: [videoImp] })), 'video');
      expect(appended).to.include({ hb_pb_cat_dur: '18.00_IAB17_30s_video' });
      const without = targetingOf(await auction(request([], { targeting: {} }, { imp: [videoImp] })), 'video');
      expect(without).to.not.have.property('hb_pb_cat_dur');
    });

    it('adservertargeting adds custom keys from the request, the bid and static values', async () => {
      const rules = [
        { key: 'site_page', source: 'bidrequest', value: 'site.page' },
        { key: 'imp_id', source: 'bidrequest', value: 'imp.id' },
        { key: '{{BIDDER}}_crid', source: 'bidresponse', value: 'seatbid.bid.crid' },
        { key: 'static_key', source: 'static', value: 'fixed' },
      ];
      const with_ = targetingOf(await auction(request(['banner2'], { adservertargeting: rules })), 'banner2');
      expect(with_).to.deep.equal({ site_page: 'https://publisher.example/article', imp_id: 'imp-1', banner2_crid: 'creative-0', static_key: 'fixed' });
      expect(bidsOf(await auction(request(['banner2'])), 'banner2')[0].ext.prebid).to.not.have.property('targeting');
    });
  });

  describe('multibid', () => {
    it('keys up to maxbids of a bidder, the extras under the targetbiddercodeprefix codes', async () => {
      const multibid = [{ bidder: 'many', maxbids: 3, targetbiddercodeprefix: 'mny' }];
      const with_ = await auction(request(['many'], { targeting: {}, multibid }));
      expect(bidsOf(with_, 'many').map((bid) => bid.ext.prebid.targetbiddercode)).to.deep.equal(['many', 'mny2', 'mny3', undefined]);
      expect(targetingOf(with_, 'many', 1)).to.deep.include({ hb_pb_mny2: '2.50', hb_bidder_mny2: 'mny2' });
      expect(targetingOf(with_, 'many', 2)).to.deep.include({ hb_pb_mny3: '2.00' });
      expect(targetingOf(with_, 'many', 3)).to.deep.equal({});
      const without = await auction(request(['many'], { targeting: {} }));
      expect(bidsOf(without, 'many')).to.have.length(4);
      expect(targetingOf(without, 'many', 1)).to.deep.equal({});
      expect(bidsOf(without, 'many')[0].ext.prebid).to.not.have.property('targetbiddercode');
    });
  });

  describe('bid adjustments', () => {
    it('bidadjustmentfactors.mediatypes applies the media type factor before the bidder factor', async () => {
      const factors = { banner2: 2, mediatypes: { banner: { banner2: 0.5 } } };
      expect(bidsOf(await auction(request(['banner2'], { bidadjustmentfactors: factors })), 'banner2')[0].price).to.equal(1.375);
      expect(bidsOf(await auction(request(['banner2'], { bidadjustmentfactors: { banner2: 2 } })), 'banner2')[0].price).to.equal(5.5);
    });

    it('bidadjustments rules: multiplier, cpm in another currency, static, by deal', async () => {
      const rules = (rule: Json) => ({ bidadjustments: { mediatype: { banner: { banner2: { '*': [rule] } } } }, currency: { rates: { EUR: { USD: 2 } } } });
      expect(bidsOf(await auction(request(['banner2'], rules({ adjtype: 'multiplier', value: 2 }))), 'banner2')[0].price).to.equal(5.5);
      expect(bidsOf(await auction(request(['banner2'], rules({ adjtype: 'cpm', value: 0.5, currency: 'EUR' }))), 'banner2')[0].price).to.equal(1.75);
      expect(bidsOf(await auction(request(['banner2'], rules({ adjtype: 'static', value: 4, currency: 'USD' }))), 'banner2')[0].price).to.equal(4);
      const byDeal = { bidadjustments: { mediatype: { '*': { '*': { 'deal-1': [{ adjtype: 'multiplier', value: 3 }] } } } } };
      expect(bidsOf(await auction(request(['deal', 'banner2'], byDeal)), 'deal')[0].price).to.equal(4.5);
      expect(bidsOf(await auction(request(['deal', 'banner2'], byDeal)), 'banner2')[0].price).to.equal(2.75);
      expect(bidsOf(await auction(request(['banner2'])), 'banner2')[0].price).to.equal(2.75);
    });

    it('an invalid bidadjustments object is ignored with a warning', async () => {
      const response = await auction(request(['banner2'], { bidadjustments: { mediatype: { banner: { banner2: { '*': [{ adjtype: 'multiplier', value: 200 }] } } } } }));
      expect(bidsOf(response, 'banner2')[0].price).to.equal(2.75);
      expect(response.ext.warnings.general).to.deep.include({ code: 10008, message: 'bid adjustment from request was invalid' });
    });
  });

  describe('bid validation', () => {
    it('drops a bid without a creative id, reporting it', async () => {
      const response = await auction(request(['nocrid', 'banner2']));
      expect(bidsOf(response, 'nocrid')).to.deep.equal([]);
      expect(response.ext.errors.nocrid).to.deep.equal([{ code: 999, message: 'Bid "nocrid-bid-0" missing creative ID' }]);
      expect(bidsOf(response, 'banner2')).to.have.length(1);
    });

    it('drops a zero-price bid without a deal (explained in debug), and keeps one with a deal', async () => {
      const quiet = await auction(request(['zero', 'zerodeal']));
      expect(bidsOf(quiet, 'zero')).to.deep.equal([]);
      expect(quiet.ext.errors?.zero).to.equal(undefined);
      expect(bidsOf(quiet, 'zerodeal')).to.have.length(1);
      const debug = await auction(request(['zero'], {}, { test: 1 }));
      expect(debug.ext.errors.zero).to.deep.equal([{ code: 999, message: 'Bid "zero-bid-0" does not contain positive \'price\' which is required since there is no deal set for this bid' }]);
    });

    it('seatnonbid (returnallbidstatus) lists each dropped bid with its reason code', async () => {
      const response = await auction(request(['nocrid', 'banner2'], { returnallbidstatus: true }));
      expect(response.ext.prebid.seatnonbid).to.deep.equal([
        { seat: 'nocrid', nonbid: [{ impid: 'imp-1', statuscode: 300, ext: { prebid: { bid: { price: 2, adomain: ['advertiser.example'], w: 300, h: 250, origbidcpm: 2, origbidcur: 'USD' } } } }] },
      ]);
      expect((await auction(request(['nocrid', 'banner2']))).ext.prebid).to.not.have.property('seatnonbid');
    });

    it('a failure status is reported as Prebid Server reports it, and its imps are seat non-bids with code 100', async () => {
      const response = await auction(request(['failing', 'banner2'], { returnallbidstatus: true }));
      expect(response.ext.errors.failing).to.deep.equal([{ code: 3, message: 'Server responded with failure status: 500. Set request.test = 1 for debugging info.' }]);
      expect(response.ext.prebid.seatnonbid).to.deep.equal([{ seat: 'failing', nonbid: [{ impid: 'imp-1', statuscode: 100 }] }]);
    });
  });

  describe('alternate bidder codes', () => {
    it('a bid under another seat is kept only when alternatebiddercodes allows that seat', async () => {
      const allowed = await auction(request(['agency'], { alternatebiddercodes: { enabled: true, bidders: { agency: { enabled: true, allowedbiddercodes: ['groupm'] } } } }));
      expect(bidsOf(allowed, 'groupm')).to.have.length(1);
      expect(bidsOf(allowed, 'groupm')[0].ext.prebid.meta.adaptercode).to.equal('agency');
      const refused = await auction(request(['agency']));
      expect(refused.seatbid, "no seat: Prebid Server leaves seatbid out").to.equal(undefined);
      expect(refused.ext.warnings.agency).to.deep.equal([{ code: 10005, message: 'alternateBidderCodes disabled for "agency", rejecting bids for "groupm"' }]);
    });
  });

  describe('DSA', () => {
    it('passes regs.ext.dsa to bidders and refuses bids without ext.dsa when it is required', async () => {
      const regs = { ext: { dsa: { dsarequired: 2, pubrender: 0, datatopub: 2 } } };
      const required = await auction(request(['dsa', 'banner2'], {}, { regs }));
      expect(bidsOf(required, 'dsa')).to.have.length(1);
      expect(bidsOf(required, 'banner2')).to.deep.equal([]);
      expect(required.ext.warnings.banner2).to.deep.equal([{ code: 10010, message: 'bid rejected: DSA object missing when required' }]);
      const sent = mock.received.filter((call) => call.url.includes('name=banner2')).at(-1)!;
      expect(sent.body.regs).to.deep.equal({ ext: { dsa: { dsarequired: 2, pubrender: 0, datatopub: 2 } } });
      const notRequired = await auction(request(['dsa', 'banner2']));
      expect(bidsOf(notRequired, 'banner2')).to.have.length(1);
    });
  });

  describe('cache options', () => {
    it('returnCreative false leaves the markup out of the answer, which the cache still has', async () => {
      const cache = { bids: { returnCreative: false } };
      const response = await auction(request(['banner2'], { targeting: {}, cache }));
      const [bid] = bidsOf(response, 'banner2');
      expect(bid).to.not.have.property('adm');
      const cached = await getJson(`${gavel.url}/cache?uuid=${bid.ext.prebid.targeting.hb_cache_id}`);
      expect(cached.json.adm).to.equal('<div>ad</div>');
      expect(bidsOf(await auction(request(['banner2'], { targeting: {}, cache: { bids: {} } })), 'banner2')[0].adm).to.equal('<div>ad</div>');
    });

    it('cache.winningonly caches only the winner of each imp', async () => {
      const only = await auction(request(['banner2', 'deal'], { targeting: {}, cache: { bids: {}, winningonly: true } }));
      expect(targetingOf(only, 'banner2')).to.have.property('hb_cache_id');
      expect(targetingOf(only, 'deal')).to.not.have.property('hb_cache_id_deal');
      const all = await auction(request(['banner2', 'deal'], { targeting: {}, cache: { bids: {} } }));
      expect(targetingOf(all, 'deal')).to.have.property('hb_cache_id_deal');
    });
  });

  describe('events', () => {
    it('ext.prebid.events puts win and impression URLs on each bid; without it there are none', async () => {
      const response = await auction(request(['banner2'], { events: {}, integration: 'pbjs' }, { site: { page: 'https://publisher.example/article', publisher: { id: 'pub-9' } } }));
      const { events } = bidsOf(response, 'banner2')[0].ext.prebid;
      expect(events.win).to.match(/^https:\/\/gavel\.example\/event\?t=win&b=banner2-bid-0&a=pub-9&bidder=banner2&int=pbjs&ts=\d+$/);
      expect(events.imp).to.equal(events.win.replace('t=win', 't=imp'));
      expect(bidsOf(await auction(request(['banner2'])), 'banner2')[0].ext.prebid).to.not.have.property('events');
    });

    it('GET /event refuses an account that does not enable events, and answers a malformed event with a 400', async () => {
      const answer = await getJson(`${gavel.url}/event?t=win&b=bid-1&a=pub-9&f=i`);
      expect(answer.status).to.equal(401);
      expect(answer.text).to.equal("Account 'pub-9' doesn't support events");
      const malformed = await getJson(`${gavel.url}/event?t=click&a=pub-9`);
      expect(malformed.status).to.equal(400);
      expect(malformed.text).to.equal("invalid request: unknown type: 'click'\ninvalid request: parameter 'b' is required\n");
      expect((await getJson(`${gavel.url}/event?t=win&b=bid-1`)).status).to.equal(401);
    });

    it('POST /vtrack caches the VAST with an impression tracker for bidders that allow it', async () => {
      const put = { bidid: 'bid-7', bidder: 'unknownbidder', type: 'xml', value: VAST, ttlseconds: 300, timestamp: 1700000000000 };
      const { status, json, text } = await postJson(`${gavel.url}/vtrack?a=pub-9&int=ssai`, { puts: [put] });
      expect(status, text).to.equal(200);
      const cached = await fetch(`${gavel.url}/cache?uuid=${json.responses[0].uuid}`);
      expect(await cached.text()).to.include(
        '<Impression><![CDATA[https://gavel.example/event?t=imp&b=bid-7&a=pub-9&bidder=unknownbidder&f=b&int=ssai&ts=1700000000000]]></Impression>',
      );
      const known = await postJson(`${gavel.url}/vtrack?a=pub-9`, { puts: [{ ...put, bidder: 'banner2' }] });
      const untouched = await fetch(`${gavel.url}/cache?uuid=${known.json.responses[0].uuid}`);
      expect(await untouched.text()).to.equal(VAST);
      expect((await postJson(`${gavel.url}/vtrack?a=pub-9`, { puts: [{ ...put, bidid: '' }] })).text).to.equal("Invalid request: 'bidid' is required field and can't be empty\n");
    });
  });

  describe("the host's settings", () => {
    let strict: RunningGavel;
    before(async () => {
      const bidders = Object.fromEntries(['banner2', 'big', 'insecure'].map((name) => [name, { adapter: 'ortb', endpoint: `${mock.url}/rtb?${BIDDERS[name]}` }]));
      strict = await startGavel({
        bidders,
        auction: { generateBidId: true, bidValidations: { bannerCreativeMaxSize: 'enforce', secureMarkup: 'enforce', maxCreativeWidth: 728, maxCreativeHeight: 600 } },
      });
    });
    after(async () => strict?.close());

    it('auction.generateBidId gives every bid a host id (ext.prebid.bidid); without it there is none', async () => {
      const [bid] = bidsOf(await auction(request(['banner2']), strict.url), 'banner2');
      expect(bid.ext.prebid.bidid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(bidsOf(await auction(request(['banner2'])), 'banner2')[0].ext.prebid).to.not.have.property('bidid');
    });

    it('auction.bidValidations drops creatives too large and markup that is not secure (their seats answered with no bid, as Prebid Server answers them); without them both are kept', async () => {
      const checked = await auction(request(['banner2', 'big', 'insecure'], { returnallbidstatus: true }), strict.url);
      expect(checked.seatbid.map((seat: Json) => [seat.seat, seat.bid.length])).to.deep.equal([['banner2', 1], ['big', 0], ['insecure', 0]]);
      expect(checked.ext.errors).to.deep.equal({
        big: [{ code: 3, message: 'bidResponse rejected: size WxH' }],
        insecure: [{ code: 3, message: 'bidResponse rejected: insecure creative in secure context' }],
      });
      expect(checked.ext.prebid.seatnonbid.map((seat: Json) => [seat.seat, seat.nonbid[0].statuscode])).to.deep.equal([['big', 351], ['insecure', 352]]);
      const unchecked = await auction(request(['banner2', 'big', 'insecure']));
      expect(unchecked.seatbid.map((seat: Json) => seat.seat).sort()).to.deep.equal(['banner2', 'big', 'insecure']);
    });
  });

  describe('native from Prebid.js', () => {
    it('a native unit whose assets Prebid.js numbered 1..6 gets bids, and its assets map by id', async () => {
      const assets = [
        { id: 1, required: 1, title: { len: 80 } },
        { id: 2, required: 1, img: { type: 3, w: 300, h: 250 } },
        { id: 3, required: 1, data: { type: 1 } },
        { id: 4, data: { type: 2 } },
        { id: 5, img: { type: 1, w: 50, h: 50 } },
        { id: 6, data: { type: 12 } },
      ];
      const nativeImp = { id: 'n1', native: { ver: '1.2', request: JSON.stringify({ ver: '1.2', context: 1, plcmttype: 1, assets }) }, ext: { prebid: { bidder: { native: {} } } } };
      const bannerImp = { id: 'b1', banner: { format: [{ w: 300, h: 250 }] }, ext: { prebid: { bidder: { banner2: {} } } } };
      const response = await auction({ id: 'pbjs-1', site: { page: 'https://publisher.example/' }, imp: [nativeImp, bannerImp], ext: { prebid: { targeting: {} } } });
      const sent = mock.received.filter((call) => call.url.includes('name=native')).at(-1)!;
      expect(JSON.parse((sent.body as Json).imp[0].native.request).assets.map((asset: Json) => asset.id)).to.deep.equal([1, 2, 3, 4, 5, 6]);
      const [bid] = bidsOf(response, 'native');
      const answered = JSON.parse(bid.adm).native.assets as Json[];
      for (const asset of assets) {
        const answer = answered.find((candidate) => candidate.id === asset.id)!;
        const kind = Object.keys(asset).find((key) => ['title', 'img', 'data'].includes(key))!;
        expect(answer, `asset ${asset.id}`).to.have.property(kind);
      }
      expect(bidsOf(response, 'banner2')).to.have.length(1);
    });
  });
});
