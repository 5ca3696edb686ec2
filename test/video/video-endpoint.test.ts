import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode } from '../../core/api/index.js';
import { postJson, startGavel, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';

/**
 * POST /openrtb2/video end to end: real `ortb` bidders on a local mock bidder (one bidder per behaviour), stored
 * requests and imps on disk in a temp dir, the shipped example category mappings, and the embedded bid cache.
 */

type Json = Record<string, any>;

const exampleMapping = (adServer: string) => fileURLToPath(new URL(`../../scripts/demo-data/category-mappings/${adServer}.json`, import.meta.url));
const categoryId = (adServer: string, iab: string): string => (JSON.parse(readFileSync(exampleMapping(adServer), 'utf8')) as Json)[iab].id;
const vastOf = (bidder: string) => `<VAST version="3.0"><Ad id="${bidder}"><InLine><AdSystem>mock</AdSystem></InLine></Ad></VAST>`;

/** name -> what it bids on every imp it is offered. */
const BIDDERS: Record<string, { price: number; dur?: number; cat?: string; status?: number; prices?: string; dealid?: string }> = {
  dur10: { price: 5, dur: 10, cat: 'IAB17' },
  dur18: { price: 4, dur: 18, cat: 'IAB20' },
  dur45: { price: 3, dur: 45, cat: 'IAB8' },
  dur15: { price: 2, dur: 15, cat: 'IAB3' },
  sportshigh: { price: 9.5, dur: 15, cat: 'IAB17' },
  sportslow: { price: 6.2, dur: 15, cat: 'IAB17' },
  movies: { price: 3.3, dur: 30, cat: 'IAB1-5' },
  tv: { price: 3.7, dur: 30, cat: 'IAB1-7' },
  broken: { price: 1, status: 500 },
  twice: { price: 7.7, prices: '7.7,7.1', dur: 15 },
  deal: { price: 8.8, dur: 15, dealid: 'D1' },
};

function bidderConfig(mock: MockBidder): Json {
  const bidders: Json = {};
  for (const [name, { price, dur, cat, status, prices, dealid }] of Object.entries(BIDDERS)) {
    const query = new URLSearchParams({ name, price: String(price), mtype: '2', adm: vastOf(name) });
    if (prices) query.set('prices', prices);
    if (dealid) query.set('dealid', dealid);
    if (dur !== undefined) query.set('dur', String(dur));
    if (cat) query.set('cat', cat);
    if (status) query.set('status', String(status));
    bidders[name] = { adapter: 'ortb', endpoint: `${mock.url}/rtb?${query}` };
  }
  return bidders;
}

/** Writes `<dir>/imps/<configid>.json` offering the pod to `bidders`. */
function writeStoredImp(dir: string, configid: string, bidders: string[], extra: Json = {}): void {
  const params = Object.fromEntries(bidders.map((name) => [name, {}]));
  writeFileSync(join(dir, 'imps', `${configid}.json`), JSON.stringify({ ...extra, ext: { prebid: { bidder: params } } }));
}

function videoRequest(pods: Array<[podid: number, seconds: number, configid: string]>, extra: Json = {}): Json {
  return {
    podconfig: { durationrangesec: [15, 30], requireexactduration: false, pods: pods.map(([podid, adpoddurationsec, configid]) => ({ podid, adpoddurationsec, configid })) },
    site: { page: 'https://video.example/watch/42', publisher: { id: 'pub-1' } },
    video: { w: 640, h: 360, mimes: ['video/mp4'], protocols: [2, 3, 7] },
    ...extra,
  };
}

const FREEWHEEL = { includebrandcategory: { primaryadserver: 1 } };

describe('POST /openrtb2/video end to end', () => {
  let mock: MockBidder;
  let gavel: RunningGavel;
  let dir: string;
  const post = async (body: unknown) => postJson(`${gavel.url}/openrtb2/video`, body);
  const callsOf = (bidder: string) => mock.received.filter((call) => call.url.includes(`name=${bidder}&`));

  before(async () => {
    mock = await startMockBidder();
    dir = mkdtempSync(join(tmpdir(), 'gavel-video-'));
    mkdirSync(join(dir, 'requests'));
    mkdirSync(join(dir, 'imps'));
    for (const name of Object.keys(BIDDERS)) writeStoredImp(dir, name, [name]);
    writeStoredImp(dir, 'durations', ['dur10', 'dur18', 'dur45']);
    writeStoredImp(dir, 'exact', ['dur15', 'dur18']);
    writeStoredImp(dir, 'sports', ['sportshigh', 'sportslow']);
    writeStoredImp(dir, 'screen', ['movies', 'tv']);
    writeStoredImp(dir, 'placed', ['dur15'], { tagid: 'preroll-slot', video: { placement: 1, mimes: ['video/webm'] } });
    writeFileSync(join(dir, 'requests', 'video-base.json'), JSON.stringify({ site: { publisher: { id: 'stored-pub' } }, bcat: ['IAB25'], tmax: 900 }));
    const ownMapping = join(dir, 'pub-own-mapping.json');
    writeFileSync(ownMapping, JSON.stringify({ IAB17: { id: 'own-sports', name: 'Sports' } }));

    gavel = await startGavel({
      bidders: bidderConfig(mock),
      // What the video request's consent fields become, not what GDPR then lets through (test/privacy).
      privacy: { gdpr: { enabled: false } },
      storedRequests: { filesystem: { dir } },
      video: { categoryMappings: { freewheel: exampleMapping('freewheel'), dfp: exampleMapping('dfp'), freewheelPublishers: { 'pub-own': ownMapping } } },
    });
  });
  after(async () => {
    await gavel?.close();
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('durations (spec 2.2)', () => {
    it('with [15, 30] not exact: a 10 s bid targets _15s, an 18 s bid _30s, a 45 s bid is rejected with an error', async () => {
      const { status, json } = await post(videoRequest([[1, 15, 'durations']]));
      expect(status).to.equal(200);
      const [adPod] = json.adPods;
      expect(adPod.podid).to.equal(1);
      expect(adPod.targeting.map((entry: Json) => entry.hb_pb_cat_dur)).to.deep.equal(['5.00_15s', '4.00_30s']);
      expect(adPod.errors).to.have.all.keys('dur45');
      expect(adPod.errors.dur45).to.have.length(1);
      expect(adPod.errors.dur45[0].code).to.equal(3);
      expect(adPod.errors.dur45[0].message).to.include('longer than the longest allowed duration');
    });

    it('with [15, 30] exact: a 15 s bid is accepted, an 18 s bid rejected', async () => {
      const { status, json } = await post(videoRequest([[1, 30, 'exact']], { podconfig: { durationrangesec: [15, 30], requireexactduration: true, pods: [{ podid: 1, adpoddurationsec: 30, configid: 'exact' }] } }));
      expect(status).to.equal(200);
      const [adPod] = json.adPods;
      // Two imps (one for each exact duration); the 15 s bidder bids on both, and its two bids share one
      // <pb>_<dur>s key: one is deduplicated, as Prebid Server deduplicates bids without brand categories.
      expect(adPod.targeting.map((entry: Json) => entry.hb_pb_cat_dur)).to.deep.equal(['2.00_15s']);
      expect(adPod.errors.dur15.map((error: Json) => error.code)).to.deep.equal([0]);
      expect(adPod.errors.dur18.map((error: Json) => error.code)).to.deep.equal([3, 3]);
      expect(adPod.errors.dur18[0].message).to.include('requires an exact duration');
    });

    it('keys the rounded duration with the translated category when brand categories are asked for', async () => {
      const { json } = await post(videoRequest([[1, 15, 'dur10']], FREEWHEEL));
      expect(json.adPods[0].targeting[0].hb_pb_cat_dur).to.equal(`5.00_${categoryId('freewheel', 'IAB17')}_15s`);
    });
  });

  describe('categories', () => {
    it('two bids of the same category in one pod: only the higher-priced one is targeted', async () => {
      const { status, json } = await post(videoRequest([[1, 15, 'sports']], FREEWHEEL));
      expect(status).to.equal(200);
      const [adPod] = json.adPods;
      expect(adPod.targeting).to.have.length(1);
      expect(adPod.targeting[0]).to.include({ hb_pb: '9.50', hb_pb_cat_dur: `9.50_${categoryId('freewheel', 'IAB17')}_15s` });
      expect(adPod.errors.sportslow).to.have.length(1);
      expect(adPod.errors.sportslow[0]).to.include({ code: 0 });
      expect(adPod.errors.sportslow[0].message).to.include('deduplicated');
    });

    it('deduplicates on the ad server category, so two IAB categories mapped to one id compete', async () => {
      expect(categoryId('freewheel', 'IAB1-5')).to.equal(categoryId('freewheel', 'IAB1-7'));
      const { json } = await post(videoRequest([[1, 30, 'screen']], FREEWHEEL));
      // 30 s pod, shortest 15 s: two imps, each bidder bids on both; one bid survives, the best (tv at 3.70).
      expect(json.adPods[0].targeting.map((entry: Json) => entry.hb_pb)).to.deep.equal(['3.70']);
    });

    it('without includebrandcategory deduplicates on the whole <pb>_<dur>s key, as Prebid Server does', async () => {
      // 30 s pod, shortest 15 s: two imps; the bidder's two bids are both 2.00_15s, so one is left out.
      const { json } = await post(videoRequest([[1, 30, 'dur15']]));
      expect(json.adPods[0].targeting.map((entry: Json) => entry.hb_pb_cat_dur)).to.deep.equal(['2.00_15s']);
      expect(json.adPods[0].errors.dur15).to.have.length(1);
      expect(json.adPods[0].errors.dur15[0].message).to.include('deduplicated');
    });

    it('keeps bids of different keys without includebrandcategory, and keys <pb>_<dur>s', async () => {
      const { json } = await post(videoRequest([[1, 15, 'sports']]));
      expect(json.adPods[0].targeting.map((entry: Json) => entry.hb_pb_cat_dur)).to.deep.equal(['9.50_15s', '6.20_15s']);
      expect(json.adPods[0]).to.not.have.property('errors');
    });

    it('primaryadserver 2 uses the other ad server mapping', async () => {
      const { json } = await post(videoRequest([[1, 15, 'dur10']], { includebrandcategory: { primaryadserver: 2 } }));
      expect(json.adPods[0].targeting[0].hb_pb_cat_dur).to.equal(`5.00_${categoryId('dfp', 'IAB17')}_15s`);
    });

    it('keys the IAB category as it is with translatecategories false', async () => {
      const { json } = await post(videoRequest([[1, 15, 'dur10']], { includebrandcategory: { primaryadserver: 1, translatecategories: false } }));
      expect(json.adPods[0].targeting.map((entry: Json) => entry.hb_pb_cat_dur)).to.deep.equal(['5.00_IAB17_15s']);
    });

    it('appends _<bidder> to hb_pb_cat_dur with appendbiddernames', async () => {
      const { json } = await post(videoRequest([[1, 15, 'dur10']], { appendbiddernames: true }));
      expect(json.adPods[0].targeting.map((entry: Json) => entry.hb_pb_cat_dur)).to.deep.equal(['5.00_15s_dur10']);
      const withCategory = await post(videoRequest([[1, 15, 'dur10']], { ...FREEWHEEL, appendbiddernames: true }));
      expect(withCategory.json.adPods[0].targeting[0].hb_pb_cat_dur).to.equal(`5.00_${categoryId('freewheel', 'IAB17')}_15s_dur10`);
    });

    it("targets only a bidder's best bid in each imp, and gives a deal bid hb_deal", async () => {
      const { json } = await post(videoRequest([[1, 15, 'twice'], [2, 15, 'deal']]));
      expect(json.adPods[0].targeting.map((entry: Json) => entry.hb_pb)).to.deep.equal(['7.70']);
      expect(json.adPods[0].targeting[0]).to.not.have.property('hb_deal');
      expect(json.adPods[1].targeting[0]).to.include({ hb_pb: '8.80', hb_deal: 'D1' });
    });

    it("a publisher with its own mapping file gets its own ids; an IAB category it lacks is rejected", async () => {
      const { json } = await post(videoRequest([[1, 15, 'durations']], { includebrandcategory: { primaryadserver: 1, publisher: 'pub-own' } }));
      const [adPod] = json.adPods;
      expect(adPod.targeting.map((entry: Json) => entry.hb_pb_cat_dur)).to.deep.equal(['5.00_own-sports_15s']);
      expect(adPod.errors.dur18[0].message).to.include('IAB20 has no freewheel category');
    });
  });

  it('every hb_cache_id resolves through GET /cache?uuid= to the VAST of its bid', async () => {
    const { json } = await post(videoRequest([[1, 30, 'sports'], [2, 15, 'durations'], [3, 30, 'screen']]));
    const bidderByBucket = new Map(Object.entries(BIDDERS).map(([name, { price }]) => [price.toFixed(2), name]));
    const entries = json.adPods.flatMap((adPod: Json) => adPod.targeting);
    // Two keys per pod: each bidder's bids on a pod's imps share their <pb>_<dur>s or category, and one is kept.
    expect(entries.length).to.equal(6);
    for (const entry of entries) {
      const response = await fetch(`${gavel.url}/cache?uuid=${encodeURIComponent(entry.hb_cache_id)}`);
      expect(response.status).to.equal(200);
      expect(await response.text()).to.equal(vastOf(bidderByBucket.get(entry.hb_pb)!));
    }
    expect(new Set(entries.map((entry: Json) => entry.hb_cache_id)).size).to.equal(entries.length);
  });

  describe('expansion into one OpenRTB request', () => {
    it('builds <podid>_<i> imps on the stored imp with the request video, and carries the stored base and the request parts', async () => {
      mock.received.length = 0;
      const body = videoRequest([[7, 60, 'placed']], {
        storedrequestid: 'video-base',
        site: { page: 'https://video.example/live' },
        content: { title: 'Episode 6', series: 'The Show', livestream: 1 },
        device: { ua: 'TestTV/1.0', ip: '203.0.113.9', devicetype: 3 },
        user: { yob: 1990, ext: { prebid: { buyeruids: { dur15: 'uid-15' } } }, gdpr: { consentstring: 'CONSENT-STRING' } },
        regs: { ext: { gdpr: 1, us_privacy: '1YNN' } },
        cacheconfig: { ttl: 300 },
      });
      const { status, json } = await post(body);
      expect(status, JSON.stringify(json)).to.equal(200);
      const [call] = callsOf('dur15');
      const sent = call!.body as Json;
      expect(sent.imp.map((imp: Json) => imp.id)).to.deep.equal(['7_0', '7_1', '7_2', '7_3']);
      for (const imp of sent.imp) {
        // The request's video replaces the stored imp's own (its placement and webm mime do not leak in).
        expect(imp.video).to.deep.equal({ w: 640, h: 360, mimes: ['video/mp4'], protocols: [2, 3, 7], maxduration: 30 });
        expect(imp).to.include({ tagid: 'preroll-slot', exp: 300 });
        expect(imp.ext).to.deep.include({ bidder: {} }).and.have.all.keys('bidder', 'tid');
      }
      // The domains and site.ext.amp are filled in as on every endpoint, as Prebid Server's video endpoint does too.
      expect(sent.site).to.deep.equal({
        page: 'https://video.example/live', domain: 'video.example', publisher: { id: 'stored-pub', domain: 'video.example' },
        content: { title: 'Episode 6', series: 'The Show', livestream: 1 }, ext: { amp: 0 },
      });
      expect(sent.device).to.include({ ua: 'TestTV/1.0', ip: '203.0.113.9', devicetype: 3 });
      expect(sent.user).to.include({ yob: 1990, buyeruid: 'uid-15' });
      expect(sent.user.ext).to.deep.equal({ consent: 'CONSENT-STRING' });
      expect(sent.regs).to.deep.equal({ ext: { gdpr: 1, us_privacy: '1YNN' } });
      expect(sent.bcat).to.deep.equal(['IAB25']);
      expect(sent.tmax).to.be.a('number').and.at.most(900);
    });

    it('tells the bidders the effective tmax when the request gives none, as Prebid Server always writes one', async () => {
      mock.received.length = 0;
      expect((await post(videoRequest([[1, 15, 'dur15']]))).status).to.equal(200);
      expect((callsOf('dur15')[0]!.body as Json).tmax).to.equal(1000);
      mock.received.length = 0;
      expect((await post(videoRequest([[1, 15, 'dur15']], { tmax: 0 }))).status).to.equal(200);
      expect((callsOf('dur15')[0]!.body as Json).tmax).to.equal(1000);
    });

    it('with exact durations, shares the imps among the durations in the order given (min = max)', async () => {
      mock.received.length = 0;
      await post(videoRequest([[3, 60, 'dur15']], { podconfig: { durationrangesec: [30, 15], requireexactduration: true, pods: [{ podid: 3, adpoddurationsec: 60, configid: 'dur15' }] } }));
      const sent = callsOf('dur15')[0]!.body as Json;
      expect(sent.imp.map((imp: Json) => [imp.id, imp.video.minduration, imp.video.maxduration])).to.deep.equal([
        ['3_0', 30, 30], ['3_1', 30, 30], ['3_2', 15, 15], ['3_3', 15, 15],
      ]);
    });

    it("replaces the site's content with the request's content, and leaves it empty when the request has none", async () => {
      mock.received.length = 0;
      const site = { page: 'https://video.example/live', publisher: { id: 'pub-1' }, content: { id: 'stale', language: 'en' } };
      await post(videoRequest([[1, 15, 'dur15']], { site, content: { title: 'Episode 6' } }));
      expect((callsOf('dur15')[0]!.body as Json).site.content).to.deep.equal({ title: 'Episode 6' });
      mock.received.length = 0;
      await post(videoRequest([[1, 15, 'dur15']], { site }));
      expect((callsOf('dur15')[0]!.body as Json).site.content).to.deep.equal({});
    });

    it('URL-decodes a User-Agent header holding a %, when the body has no device.ua', async () => {
      mock.received.length = 0;
      await postJson(`${gavel.url}/openrtb2/video`, videoRequest([[1, 15, 'dur15']]), { 'user-agent': 'Mozilla%2F5.0+(Smart%20TV)' });
      expect((callsOf('dur15')[0]!.body as Json).device.ua).to.equal('Mozilla/5.0 (Smart TV)');
      mock.received.length = 0;
      await postJson(`${gavel.url}/openrtb2/video`, videoRequest([[1, 15, 'dur15']], { device: { ua: 'Body%20UA' } }), { 'user-agent': 'Header%20UA' });
      expect((callsOf('dur15')[0]!.body as Json).device.ua).to.equal('Body%20UA');
    });

    it('drops empty mime strings and takes protocol integers past 10', async () => {
      mock.received.length = 0;
      const { status } = await post(videoRequest([[1, 15, 'dur15']], { video: { mimes: ['', 'video/mp4'], protocols: [7, 11] } }));
      expect(status).to.equal(200);
      expect((callsOf('dur15')[0]!.body as Json).imp[0].video).to.deep.include({ mimes: ['video/mp4'], protocols: [7, 11] });
    });

    it('puts the content in app.content for an app, and forwards consent required as regs.ext.gdpr', async () => {
      mock.received.length = 0;
      const body = videoRequest([[1, 15, 'dur15']], {
        app: { domain: 'tv.example', bundle: 'com.example.tv', publisher: { id: 'pub-1' } },
        content: { episode: 3 },
        user: { buyeruids: { dur15: 'uid-app' }, gdpr: { consentrequired: true } },
      });
      delete body.site;
      const { status } = await post(body);
      expect(status).to.equal(200);
      const sent = callsOf('dur15')[0]!.body as Json;
      expect(sent.app).to.deep.equal({ domain: 'tv.example', bundle: 'com.example.tv', publisher: { id: 'pub-1' }, content: { episode: 3 } });
      expect(sent).to.not.have.property('site');
      expect(sent.user.buyeruid).to.equal('uid-app');
      expect(sent.regs.ext.gdpr).to.equal(1);
    });

    it('buckets prices with the request pricegranularity', async () => {
      const { json } = await post(videoRequest([[1, 15, 'sports']], { pricegranularity: { precision: 2, ranges: [{ max: 10, increment: 1 }] } }));
      expect(json.adPods[0].targeting.map((entry: Json) => [entry.hb_pb, entry.hb_pb_cat_dur])).to.deep.equal([['9.00', '9.00_15s'], ['6.00', '6.00_15s']]);
    });

    it('takes a granularity without ranges for the default one, whatever its precision, as Prebid Server SetDefaults does', async () => {
      for (const pricegranularity of [{ precision: 3 }, { precision: 1, ranges: [] }]) {
        const { status, json } = await post(videoRequest([[1, 15, 'sports']], { pricegranularity }));
        expect(status, JSON.stringify(json)).to.equal(200);
        expect(json.adPods[0].targeting.map((entry: Json) => entry.hb_pb)).to.deep.equal(['9.50', '6.20']);
      }
    });

    it('takes a legacy price granularity name, as the auction endpoint does', async () => {
      const { status, json } = await post(videoRequest([[1, 15, 'sports']], { pricegranularity: 'low' }));
      expect(status).to.equal(200);
      // low: 0.50 steps up to 5.00, the cap; both bids are 5.00_15s, so one is deduplicated.
      expect(json.adPods[0].targeting.map((entry: Json) => entry.hb_pb)).to.deep.equal(['5.00']);
    });
  });

  describe('errors', () => {
    it("puts a bidder's error under the pods it was offered only", async () => {
      const { status, json } = await post(videoRequest([[1, 15, 'broken'], [2, 15, 'dur15']]));
      expect(status).to.equal(200);
      expect(json.adPods[0].errors.broken[0].code).to.equal(3);
      expect(json.adPods[0].targeting).to.deep.equal([]);
      expect(json.adPods[1]).to.not.have.property('errors');
      expect(json.adPods[1].targeting).to.have.length(1);
    });

    it('names missing required fields in a 400', async () => {
      const body = videoRequest([]);
      delete body.podconfig;
      const { status, text } = await post(body);
      expect(status).to.equal(400);
      expect(text).to.equal('Invalid request: request missing required field: PodConfig.DurationRangeSec\nInvalid request: request missing required field: PodConfig.Pods\n');
    });

    it('answers 400 when the stored request named does not exist', async () => {
      const { status, text } = await post(videoRequest([[1, 15, 'dur15']], { storedrequestid: 'nowhere' }));
      expect(status).to.equal(400);
      expect(text).to.include('stored request with id "nowhere" (storedrequestid) not found');
    });

    it('drops a bad pod with an error and serves the rest', async () => {
      const body = videoRequest([[1, 15, 'dur15'], [2, 15, 'no-such-config'], [1, 30, 'dur15']]);
      const { status, json } = await post(body);
      expect(status).to.equal(200);
      expect(json.adPods.map((adPod: Json) => adPod.podid)).to.deep.equal([1, 2, 1]);
      expect(json.adPods[0].targeting).to.have.length(1);
      expect(json.adPods[1].errors.general[0]).to.deep.equal({ code: 2, message: 'unable to load configid no-such-config, Pod id: 2' });
      expect(json.adPods[2].errors.general[0].message).to.equal('request duplicated required field: PodConfig.Pods.PodId, Pod id: 1');
    });

    it('answers 400 when no pod is usable', async () => {
      const { status, text } = await post(videoRequest([[1, 15, 'no-such-config'], [2, 10, 'dur15']]));
      expect(status).to.equal(400);
      expect(text).to.include('unable to load configid no-such-config, Pod id: 1');
      expect(text).to.include('pod 2 lasts 10 s, shorter than the shortest allowed ad duration (15 s), Pod index: 1');
    });

    it("names every pod's faults in one line when none is usable, as Prebid Server does", async () => {
      const body = videoRequest([[0, 15, 'no-such-config'], [2, 15, 'no-such-config']]);
      body.podconfig.pods[0].adpoddurationsec = -15;
      const { status, text } = await post(body);
      expect(status).to.equal(400);
      expect(text).to.equal(
        'Invalid request: all pods are incorrect: request missing required field: PodConfig.Pods.PodId, Pod index: 0, ' +
          'request incorrect required field: PodConfig.Pods.AdPodDurationSec is negative, Pod index: 0; unable to load configid no-such-config, Pod id: 2\n',
      );
    });

    it('drops a pod too long to expand rather than building its imps', async () => {
      const { status, json } = await post(videoRequest([[1, 15, 'dur15'], [2, 2_000_000_000, 'dur15']]));
      expect(status).to.equal(200);
      expect(json.adPods[0].targeting).to.have.length(1);
      expect(json.adPods[1].errors.general[0].message).to.include('would need 133333333 imps');
    });

    it('answers bodies of the wrong shape with a 400, never a crash', async () => {
      const bodies = [
        [],
        { podconfig: [], video: 'mp4', site: 1 },
        { ...videoRequest([[1, 15, 'dur15']]), storedrequestid: 42 },
        { ...videoRequest([[1, 15, 'dur15']]), user: { gdpr: 'yes' }, content: [] },
        { ...videoRequest([[1, 15, 'dur15']]), pricegranularity: { ranges: [{ max: 5, increment: 1 }, { max: 2, increment: 1 }] } },
      ];
      for (const body of bodies) {
        const { status, text } = await post(body);
        expect(status, text).to.equal(400);
        expect(text).to.match(/^Invalid request: /);
      }
    });

    it('passes the auction validation through: unknown buyeruids bidders are a 400', async () => {
      const { status, text } = await post(videoRequest([[1, 15, 'dur15']], { user: { buyeruids: { nobody: 'x' } } }));
      expect(status).to.equal(400);
      expect(text).to.include('nobody');
    });
  });

  describe('host settings', () => {
    let limited: RunningGavel;
    before(async () => {
      limited = await startGavel({
        bidders: bidderConfig(mock),
        storedRequests: { filesystem: { dir } },
        video: { categoryMappings: { freewheel: exampleMapping('freewheel') }, maxImpsPerRequest: 3 },
      });
    });
    after(async () => limited?.close());

    it('asks for a category mapping the host has (400 naming the field otherwise)', async () => {
      const { status, text } = await postJson(`${limited.url}/openrtb2/video`, videoRequest([[1, 15, 'dur15']], { includebrandcategory: { primaryadserver: 2 } }));
      expect(status).to.equal(400);
      expect(text).to.include('IncludeBrandCategory.PrimaryAdServer: this host has no category mapping for ad server 2 (dfp)');
    });

    it('needs no category mapping when categories are not translated', async () => {
      const { status, json } = await postJson(`${limited.url}/openrtb2/video`, videoRequest([[1, 15, 'dur15']], { includebrandcategory: { primaryadserver: 2, translatecategories: false } }));
      expect(status).to.equal(200);
      expect(json.adPods[0].targeting.map((entry: Json) => entry.hb_pb_cat_dur)).to.deep.equal(['2.00_IAB3_15s']);
    });

    it("refuses a request without a storedrequestid in Prebid Server's words when the host requires one", async () => {
      const requiring = await startGavel({ bidders: bidderConfig(mock), storedRequests: { filesystem: { dir } }, video: { requireStoredRequest: true } });
      try {
        const missing = await postJson(`${requiring.url}/openrtb2/video`, videoRequest([[1, 15, 'dur15']]));
        expect(missing.status).to.equal(400);
        expect(missing.text).to.equal('Invalid request: Unable to find required stored request id\n');
        const given = await postJson(`${requiring.url}/openrtb2/video`, videoRequest([[1, 15, 'dur15']], { storedrequestid: 'video-base' }));
        expect(given.status, given.text).to.equal(200);
      } finally {
        await requiring.close();
      }
    });

    it('drops a pod that would take the request over the imp limit', async () => {
      const { status, json } = await postJson(`${limited.url}/openrtb2/video`, videoRequest([[1, 30, 'dur15'], [2, 30, 'dur15']]));
      expect(status).to.equal(200);
      // Two imps, whose two bids share one <pb>_<dur>s key: one is targeted.
      expect(json.adPods[0].targeting).to.have.length(1);
      expect(json.adPods[1].errors.general[0].message).to.include('would need 2 imps, more than the 1 left');
    });

    it('refuses to boot with a category mapping file that does not exist', async () => {
      let failure: unknown;
      try {
        const app = await startGavel({ video: { categoryMappings: { dfp: join(dir, 'missing.json') } } });
        await app.close();
      } catch (err) {
        failure = err;
      }
      expect(failure).to.have.property('code', ErrorCode.ConfigInvalid);
      expect((failure as Error).message).to.include('video.categoryMappings.dfp');
    });
  });
});
