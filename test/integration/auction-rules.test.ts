import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { bannerRequest, postJson, startGavel, type RunningGavel } from '../support/gavel.js';

describe('POST /openrtb2/auction rules', () => {
  let bidder: MockBidder;
  let gavel: RunningGavel;
  let storedDir: string;
  let auctionUrl: string;

  before(async () => {
    bidder = await startMockBidder();
    storedDir = mkdtempSync(join(tmpdir(), 'gavel-stored-'));
    mkdirSync(join(storedDir, 'requests'));
    mkdirSync(join(storedDir, 'imps'));
    writeFileSync(join(storedDir, 'requests', 'base.json'), JSON.stringify({ site: { page: 'https://stored.example/' }, tmax: 400, ext: { prebid: { targeting: {} } } }));
    writeFileSync(join(storedDir, 'imps', 'slot-1.json'), JSON.stringify({ banner: { format: [{ w: 320, h: 50 }] }, ext: { alpha: { zone: 'stored' } } }));
    writeFileSync(join(storedDir, 'imps', 'outstream.json'), JSON.stringify({ video: { mimes: ['video/mp4'], w: 640, h: 360, placement: 3 }, ext: { alpha: { zone: 'stored' } } }));
    gavel = await startGavel({
      server: { maxRequestBytes: 4096 },
      storedRequests: { filesystem: { dir: storedDir } },
      bidders: {
        alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1.00` },
        beta: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=beta&price=2.00` },
      },
    });
    auctionUrl = `${gavel.url}/openrtb2/auction`;
  });
  after(async () => {
    await gavel?.close();
    await bidder?.close();
  });

  const lastCallTo = (name: string) => [...bidder.received].reverse().find((call) => call.url.includes(`name=${name}`))!;

  describe('namespaces', () => {
    it('answers in ext.svc when the request speaks svc', async () => {
      const { json } = await postJson(auctionUrl, bannerRequest({ alpha: {} }, { ext: { svc: { targeting: {} } } }));
      const bid = json.seatbid[0].bid[0];
      expect(bid.ext.svc.targeting.hb_bidder).to.equal('alpha');
      expect(bid.ext).to.not.have.property('prebid');
    });

    it('answers in ext.prebid when the request speaks prebid, with params under imp.ext.prebid.bidder', async () => {
      const request = bannerRequest({ prebid: { bidder: { alpha: { zone: 'p' } } } }, { ext: { prebid: { targeting: {} } } });
      const { json } = await postJson(auctionUrl, request);
      expect(json.seatbid[0].bid[0].ext.prebid.targeting.hb_bidder).to.equal('alpha');
      expect((lastCallTo('alpha').body.imp as any[])[0].ext.bidder).to.deep.equal({ zone: 'p' });
    });

    it('merges svc over prebid when a request uses both', async () => {
      const oneDecimal = { precision: 1, ranges: [{ max: 20, increment: 0.1 }] };
      const request = bannerRequest({ alpha: {} }, { ext: { prebid: { targeting: { pricegranularity: 'low', includebidderkeys: false } }, svc: { targeting: { pricegranularity: oneDecimal } } } });
      const { json } = await postJson(auctionUrl, request);
      const targeting = json.seatbid[0].bid[0].ext.svc.targeting;
      expect(targeting.hb_pb).to.equal('1.0');
      expect(targeting).to.not.have.property('hb_pb_alpha');
    });
  });

  describe('bad input', () => {
    it("malformed JSON is a 400 that says so, in the decoder's words and with the parser's position", async () => {
      const truncated = await postJson(auctionUrl, '{"id": ');
      expect(truncated.status).to.equal(400);
      expect(truncated.text).to.equal('Invalid request: expect a value, but found end of input at offset 7 (line 1, column 8) (request body is not valid JSON)\n');
      const trailingComma = await postJson(auctionUrl, '{"id": "r",\n "imp": [{},]}');
      expect(trailingComma.text).to.equal('Invalid request: expect { or n, but found ] at offset 24 (line 2, column 13) (request body is not valid JSON)\n');
    });

    it('a body that is not an object is a 400; a null body is a request without an id', async () => {
      const array = await postJson(auctionUrl, '[1,2]');
      expect(array.status).to.equal(400);
      expect(array.text).to.equal('Invalid request: expect { or n, but found [ (request body must be a JSON object)\n');
      const nothing = await postJson(auctionUrl, 'null');
      expect(nothing.status).to.equal(400);
      expect(nothing.text).to.equal('Invalid request: request missing required field: "id" (the request body is null; send a JSON object)\n');
    });

    it('an over-size body is a 413, before and after gzip decompression', async () => {
      const big = JSON.stringify(bannerRequest({ alpha: {} }, { padding: 'x'.repeat(5000) }));
      expect((await postJson(auctionUrl, big)).status).to.equal(413);
      const compressed = gzipSync(big);
      expect(compressed.length).to.be.below(4096);
      const viaHeader = await fetch(auctionUrl, { method: 'POST', body: compressed, headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' } });
      expect(viaHeader.status).to.equal(413);
      const viaQuery = await fetch(`${auctionUrl}?gzip=1`, { method: 'POST', body: compressed, headers: { 'content-type': 'text/plain' } });
      expect(viaQuery.status).to.equal(413);
    });

    it('a chunked body with no Content-Length that passes the limit still gets its 413', async () => {
      const big = JSON.stringify(bannerRequest({ alpha: {} }, { padding: 'x'.repeat(20000) }));
      const stream = new ReadableStream({
        start(controller) {
          for (let i = 0; i < big.length; i += 1000) controller.enqueue(new TextEncoder().encode(big.slice(i, i + 1000)));
          controller.close();
        },
      });
      const response = await fetch(auctionUrl, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
      expect(response.status).to.equal(413);
      expect(await response.text()).to.contain('4096-byte limit');
    });

    it('a gzip body within the limit is accepted, by header or by ?gzip=1', async () => {
      const body = gzipSync(JSON.stringify(bannerRequest({ alpha: {} })));
      const viaHeader = await fetch(auctionUrl, { method: 'POST', body, headers: { 'content-encoding': 'gzip' } });
      expect(viaHeader.status).to.equal(200);
      const viaQuery = await fetch(`${auctionUrl}?gzip=1`, { method: 'POST', body });
      expect(viaQuery.status).to.equal(200);
    });

    it('broken gzip is a 400, never a 500', async () => {
      const response = await fetch(`${auctionUrl}?gzip=1`, { method: 'POST', body: 'not gzip at all' });
      expect(response.status).to.equal(400);
    });
  });

  describe('imp.secure', () => {
    it('is 1 for bidders when the request came over https and the publisher did not set it', async () => {
      await postJson(auctionUrl, bannerRequest({ alpha: {} }), { 'x-forwarded-proto': 'https' });
      expect((lastCallTo('alpha').body.imp as any[])[0].secure).to.equal(1);
    });

    it('keeps an explicit 0, and is 1 over plain http too, as Prebid Server defaults it', async () => {
      const request = bannerRequest({ alpha: {} });
      (request.imp as any[])[0].secure = 0;
      await postJson(auctionUrl, request, { 'x-forwarded-proto': 'https' });
      expect((lastCallTo('alpha').body.imp as any[])[0].secure).to.equal(0);
      await postJson(auctionUrl, bannerRequest({ alpha: {} }));
      expect((lastCallTo('alpha').body.imp as any[])[0].secure).to.equal(1);
    });

    it('gives a request without source.tid, or with {{UUID}}, a random one, and each imp without ext.tid its own; a given tid stays', async () => {
      const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
      const request = bannerRequest({ alpha: {} }, { source: { tid: '{{UUID}}' } });
      (request.imp as any[]).push({ id: 'imp-2', banner: { format: [{ w: 300, h: 250 }] }, ext: { alpha: {}, tid: 'given-tid' } });
      await postJson(auctionUrl, request);
      const sent = lastCallTo('alpha').body as any;
      expect(sent.source.tid).to.match(uuid);
      expect(sent.imp[0].ext.tid).to.match(uuid).and.not.equal(sent.source.tid);
      expect(sent.imp[1].ext.tid).to.equal('given-tid');
    });

    it('fills at, the site from the Referer or its page (page, domain, publisher domain) and site.ext.amp, as Prebid Server does', async () => {
      const request = bannerRequest({ alpha: {} }, { site: { page: 'https://news.sub.example.co.uk/story?x=1' } });
      await postJson(auctionUrl, request);
      const sent = lastCallTo('alpha').body as any;
      expect(sent.at).to.equal(1);
      expect(sent.site).to.deep.include({ page: 'https://news.sub.example.co.uk/story?x=1', domain: 'news.sub.example.co.uk', publisher: { domain: 'example.co.uk' }, ext: { amp: 0 } });
      // The Referer wins over the page for the domains; what the request states is kept.
      await postJson(auctionUrl, bannerRequest({ alpha: {} }, { at: 2, site: { page: 'https://p.example/', domain: 'own.example', ext: { amp: 1 } } }), { referer: 'https://ref.example.com/a' });
      const kept = lastCallTo('alpha').body as any;
      expect([kept.at, kept.site.domain, kept.site.publisher, kept.site.ext]).to.deep.equal([2, 'own.example', { domain: 'example.com' }, { amp: 1 }]);
      // No site, app or dooh at all: the Referer makes one, as Prebid Server assumes a site.
      const { status } = await postJson(auctionUrl, { id: 'r-ref', imp: bannerRequest({ alpha: {} }).imp }, { referer: 'https://made.example/page' });
      expect(status).to.equal(200);
      expect((lastCallTo('alpha').body as any).site).to.deep.include({ page: 'https://made.example/page', domain: 'made.example' });
    });
  });

  describe('aliases', () => {
    it('an alias is its own seat with alias-named targeting keys', async () => {
      const request = bannerRequest({ alpha: {}, fastlane: {} }, { ext: { prebid: { aliases: { fastlane: 'beta' }, targeting: {} } } });
      const { json } = await postJson(auctionUrl, request);
      const seats = Object.fromEntries(json.seatbid.map((seat: any) => [seat.seat, seat.bid[0]]));
      expect(Object.keys(seats).sort()).to.deep.equal(['alpha', 'fastlane']);
      expect(seats.fastlane.ext.prebid.targeting).to.include({ hb_bidder_fastlane: 'fastlane', hb_bidder: 'fastlane' });
      expect(seats.fastlane.ext.prebid.meta.adaptercode).to.equal('beta');
    });

    it('an alias named like a core bidder never carries that bidder\'s cookie id to its own adapter', async () => {
      const future = new Date(Date.now() + 86_400_000).toISOString();
      const cookie = Buffer.from(JSON.stringify({ tempUIDs: { alpha: { uid: 'alpha-only', expires: future } } })).toString('base64');
      await postJson(auctionUrl, bannerRequest({ alpha: {} }, { ext: { prebid: { aliases: { alpha: 'beta' } } } }), { cookie: `uids=${cookie}` });
      expect(lastCallTo('beta').body.user).to.equal(undefined);
    });

    it('an alias named like a core bidder takes precedence', async () => {
      const request = bannerRequest({ alpha: {} }, { ext: { prebid: { aliases: { alpha: 'beta' } } } });
      const { json } = await postJson(auctionUrl, request);
      expect(json.seatbid[0].seat).to.equal('alpha');
      expect(json.seatbid[0].bid[0].price).to.equal(2);
    });
  });

  describe('bid adjustment', () => {
    it('multiplies the price by the bidder factor, and targeting buckets the adjusted price', async () => {
      const request = bannerRequest({ beta: {} }, { ext: { prebid: { bidadjustmentfactors: { BETA: 0.9 }, targeting: {} } } });
      const { json } = await postJson(auctionUrl, request);
      const bid = json.seatbid[0].bid[0];
      expect(bid.price).to.be.closeTo(1.8, 1e-9);
      expect(bid.ext.origbidcpm).to.equal(2);
      expect(bid.ext.prebid.targeting.hb_pb).to.equal('1.80');
    });
  });

  describe('debug', () => {
    it('returns httpcalls and the resolved request only when test = 1', async () => {
      const plain = await postJson(auctionUrl, bannerRequest({ alpha: {} }));
      expect(plain.json.ext).to.not.have.property('debug');
      expect(plain.json.ext.tmaxrequest).to.equal(500);
      const debug = await postJson(auctionUrl, bannerRequest({ alpha: {} }, { test: 1 }));
      const call = debug.json.ext.debug.httpcalls.alpha[0];
      expect(call.status).to.equal(200);
      expect(call.uri).to.contain('name=alpha');
      expect(JSON.parse(call.requestbody).imp[0].ext.bidder).to.deep.equal({});
      expect(debug.json.ext.debug.resolvedrequest.id).to.equal('req-1');
    });
  });

  describe('stored requests', () => {
    it('merges the stored request and stored imp under the body (JSON merge patch)', async () => {
      const request = { id: 'stored-1', imp: [{ id: 'i1', ext: { prebid: { storedrequest: { id: 'slot-1' } } } }], ext: { prebid: { storedrequest: { id: 'base' } } } };
      const { status, json } = await postJson(auctionUrl, request);
      expect(status).to.equal(200);
      expect(json.seatbid[0].bid[0].ext.prebid.targeting.hb_size).to.equal('320x50');
      const sent = lastCallTo('alpha').body as any;
      expect(sent.site.page).to.equal('https://stored.example/');
      expect(sent.imp[0].ext.bidder).to.deep.equal({ zone: 'stored' });
    });

    it("echoes the stored imp's video in the bids of an imp that asks for it (options.echovideoattrs)", async () => {
      const imp = (id: string, echo: boolean) => ({ id, video: { w: 300 }, ext: { prebid: { storedrequest: { id: 'outstream' }, ...(echo && { options: { echovideoattrs: true } }) } } });
      const { status, json } = await postJson(auctionUrl, { id: 'stored-echo', site: { page: 'https://p.example/' }, imp: [imp('asks', true), imp('quiet', false)] });
      expect(status).to.equal(200);
      const bids = new Map((json.seatbid[0].bid as any[]).map((bid) => [bid.impid, bid]));
      // The stored imp's own video, not the merged one (the request's w: 300 is not in it).
      expect(bids.get('asks').ext.storedrequestattributes).to.deep.equal({ mimes: ['video/mp4'], w: 640, h: 360, placement: 3 });
      expect(bids.get('quiet').ext).to.not.have.property('storedrequestattributes');
    });

    it('a missing stored id is a 400 naming it', async () => {
      const request = { id: 'stored-2', imp: [{ id: 'i1', ext: { prebid: { storedrequest: { id: 'nope' } } } }], site: { page: 'x' } };
      const { status, text } = await postJson(auctionUrl, request);
      expect(status).to.equal(400);
      expect(text).to.contain('"nope"');
    });
  });

  describe('buyer ids', () => {
    it('gives each bidder only its own id from user.ext.<ns>.buyeruids, and removes the map', async () => {
      const request = bannerRequest({ alpha: {}, beta: {} }, { user: { ext: { prebid: { buyeruids: { alpha: 'a-1', beta: 'b-2' } } } } });
      await postJson(auctionUrl, request);
      expect((lastCallTo('alpha').body.user as any).buyeruid).to.equal('a-1');
      expect((lastCallTo('beta').body.user as any).buyeruid).to.equal('b-2');
      expect(JSON.stringify(lastCallTo('beta').body.user)).to.not.contain('a-1');
    });

    it('an explicit user.buyeruid goes to every bidder', async () => {
      await postJson(auctionUrl, bannerRequest({ alpha: {}, beta: {} }, { user: { buyeruid: 'same', ext: { prebid: { buyeruids: { alpha: 'a-1' } } } } }));
      expect((lastCallTo('alpha').body.user as any).buyeruid).to.equal('same');
      expect((lastCallTo('beta').body.user as any).buyeruid).to.equal('same');
    });

    it('falls back to the uids cookie, skipping expired entries', async () => {
      const future = new Date(Date.now() + 86_400_000).toISOString();
      const past = new Date(Date.now() - 1000).toISOString();
      const cookie = Buffer.from(JSON.stringify({ tempUIDs: { alpha: { uid: 'cookie-a', expires: future }, beta: { uid: 'old-b', expires: past } } })).toString('base64');
      await postJson(auctionUrl, bannerRequest({ alpha: {}, beta: {} }), { cookie: `uids=${cookie}` });
      expect((lastCallTo('alpha').body.user as any).buyeruid).to.equal('cookie-a');
      expect(lastCallTo('beta').body.user).to.equal(undefined);
    });
  });

  describe('CORS', () => {
    it('echoes the origin with credentials and answers preflights', async () => {
      const preflight = await fetch(auctionUrl, { method: 'OPTIONS', headers: { origin: 'https://pub.example', 'access-control-request-method': 'POST' } });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin')).to.equal('https://pub.example');
      expect(preflight.headers.get('access-control-allow-credentials')).to.equal('true');
    });
  });
});
