/**
 * The auction inspector on the admin listener: recent auctions recorded (sampled, bounded, with no user ids or IP
 * addresses), one auction drawn as a timeline, a pasted request replayed with `test: 1`. The browser part drives
 * Debian's chromium (headless, through playwright-core) and reads the timeline back from a screenshot: three bidders,
 * one slow, make three bars, the slow one past the deadline line, and the winner's targeting is on the page.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TIMELINE_COLOURS } from '../../core/inspector/page.js';
import type { AuctionRecord } from '../../core/inspector/index.js';
import { startAdminServer, type AdminServer } from '../../core/metrics/index.js';
import { bannerRequest, getJson, postJson, silentLogger, startGavel, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { writeModulePackage } from '../support/module-package.js';
import { barsOf, columnOf, decodePng, rgb } from '../support/png.js';

const CHROMIUM = '/usr/bin/chromium';

/** The request of the test auction: three bidders, targeting on, and a user and device that must not be kept. */
function auctionRequest(): Record<string, unknown> {
  return bannerRequest(
    { alpha: {}, beta: {}, slow: {} },
    {
      id: 'inspected-1',
      tmax: 300,
      site: { page: 'https://news.example/story?session=abc123', publisher: { id: 'pub-7' } },
      user: { id: 'user-secret-id', buyeruid: 'buyer-secret', eids: [{ source: 'ids.example', uids: [{ id: 'eid-secret' }] }], ext: { consent: 'CONSENT-STRING' } },
      device: { ip: '203.0.113.7', ipv6: '2001:db8::7', ifa: 'ifa-secret', ua: 'Mozilla/5.0 test', geo: { lat: 52.3676543, lon: 4.9041234, country: 'NLD' } },
      imp: [{ id: 'slot-1', banner: { format: [{ w: 300, h: 250 }] }, bidfloor: 0.5, bidfloorcur: 'USD', ext: { alpha: {}, beta: {}, slow: {} } }],
      ext: { prebid: { targeting: { pricegranularity: 'med' } } },
      // Said outright: the geo is in the EEA, where GDPR would otherwise apply and the made-up consent ask no bidder.
      regs: { gdpr: 0 },
    },
  );
}

describe('auction inspector', function () {
  this.timeout(30_000);
  let bidder: MockBidder;
  let gavel: RunningGavel;
  let admin: AdminServer;
  let adminUrl: string;

  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gavel-inspector-'));
    // A module whose hooks run before the bidders are called and once per bidder: the timeline's hook bars.
    writeModulePackage(
      dir,
      'acme-look',
      "{ kind: 'module', code: 'acme.look', version: '1.0.0', sdkVersion: '2.0.0', stages: ['processed-auction-request', 'bidder-request'], create: () => ({ 'processed-auction-request': { scan: () => undefined }, 'bidder-request': { tag: () => ({ action: 'update', changes: [] }) } }) }",
    );
    bidder = await startMockBidder();
    gavel = await startGavel({
      plugins: [join(dir, 'acme-look')],
      // Floors run by default; off here so the hook rows are the test module's alone.
      modules: { 'acme.look': { enabled: true }, 'prebid.floors': { enabled: false } },
      admin: { inspector: { sampleRate: 1, maxAuctions: 3 } },
      bidders: {
        alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=2` },
        beta: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=beta&price=1.5` },
        slow: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=slow&price=9&delayMs=3000` },
      },
    });
    admin = await startAdminServer({ host: '127.0.0.1', port: 0, metrics: gavel.app.metrics as never, logger: silentLogger, readiness: () => true, mounts: gavel.app.adminMounts });
    adminUrl = `http://127.0.0.1:${admin.port}`;
  });
  after(async () => {
    await admin?.close();
    await gavel?.close();
    await bidder?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The record of an auction once its last bidder call ended (the slow one ends after the answer). */
  async function settledRecord(id: string): Promise<AuctionRecord> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const { json } = await getJson(`${adminUrl}/inspector/api/auctions/${id}`);
      const record = json as AuctionRecord;
      if (record.calls.length > 0 && record.calls.every((call) => call.answeredAt !== undefined)) return record;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`auction ${id} still has calls out`);
  }

  describe('what it records', () => {
    let record: AuctionRecord;
    let id: string;
    before(async () => {
      const answer = await postJson(`${gavel.url}/openrtb2/auction`, auctionRequest());
      expect(answer.status, answer.text).to.equal(200);
      const { json: list } = await getJson(`${adminUrl}/inspector/api/auctions`);
      id = (list as Array<{ id: string; auctionId: string }>).find((entry) => entry.auctionId === 'inspected-1')!.id;
      record = await settledRecord(id);
    });

    it('each bidder call from send to answer, the slow one ended at the bidders’ deadline (its call aborted)', () => {
      expect(record.calls.map((call) => call.bidder).sort()).to.deep.equal(['alpha', 'beta', 'slow']);
      const slow = record.calls.find((call) => call.bidder === 'slow')!;
      // The auction's timer runs on whole milliseconds: it may fire up to 1 ms before the fractional deadline.
      expect(slow.answeredAt!).to.be.at.least(record.bidderDeadline - 1);
      expect(slow.error?.code).to.equal(1);
      expect(record.abandoned).to.have.keys('slow');
      for (const call of record.calls.filter((entry) => entry.bidder !== 'slow')) {
        expect(call).to.include({ status: 200, host: new URL(bidder.url).host });
        expect(call.answeredAt!).to.be.lessThan(record.bidderDeadline);
      }
      expect(record.deadline - record.receivedAt).to.equal(300);
    });

    it('each hook run, by stage', () => {
      expect(record.hooks.map((hook) => `${hook.stage} ${hook.module} ${hook.hook} ${hook.status}`)).to.deep.equal([
        'processed-auction-request acme.look scan success',
        'bidder-request acme.look tag success',
        'bidder-request acme.look tag success',
        'bidder-request acme.look tag success',
      ]);
      for (const hook of record.hooks) expect(hook.at).to.be.within(record.receivedAt, record.bidderDeadline);
    });

    it('bids with their prices, the floor, the validation outcome, the winner and its targeting', () => {
      expect(record.validation).to.deep.equal({ valid: true, messages: [] });
      expect(record.imps).to.deep.equal([{ id: 'slot-1', media: ['banner'], floor: 0.5, floorCurrency: 'USD', bidders: ['alpha', 'beta', 'slow'] }]);
      const alpha = record.bids.find((bid) => bid.bidder === 'alpha')!;
      expect(alpha).to.include({ impId: 'slot-1', originalPrice: 2, originalCurrency: 'USD', receivedPrice: 2, price: 2, kept: true, winner: true });
      expect(alpha.targeting).to.include({ hb_bidder: 'alpha', hb_pb: '2.00' });
      expect(record.bids.find((bid) => bid.bidder === 'beta')).to.include({ winner: false, kept: true });
    });

    it('no user id, buyer id, eid, IP address, device id, precise location or page query', () => {
      const text = JSON.stringify(record);
      // Coordinates with more digits than any timestamp of the record could share by chance (52.1 once matched one).
      for (const secret of ['user-secret-id', 'buyer-secret', 'eid-secret', '203.0.113.7', '2001:db8::7', 'ifa-secret', '52.3676543', '4.9041234', 'session=abc123']) expect(text).to.not.contain(secret);
      expect(text).to.not.match(/"(lat|lon)":/);
      // The request as the auction reads it: normalised to OpenRTB 2.6 (user.ext.consent is user.consent there).
      expect(record.request!.user).to.deep.equal({ consent: 'CONSENT-STRING' });
      expect((record.request!.device as Record<string, unknown>).geo).to.deep.equal({ country: 'NLD' });
      expect((record.request!.site as Record<string, unknown>).page).to.equal('https://news.example/story');
    });

    it('keeps at most maxAuctions, the newest', async () => {
      for (let i = 0; i < 4; i++) await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }, { id: `more-${i}` }));
      const { json } = await getJson(`${adminUrl}/inspector/api/auctions`);
      expect((json as Array<{ auctionId: string }>).map((entry) => entry.auctionId)).to.deep.equal(['more-3', 'more-2', 'more-1']);
      expect((await getJson(`${adminUrl}/inspector/api/auctions/${id}`)).status).to.equal(404);
    });

    it('records nothing at a sample rate of 0, but still a replay', async () => {
      const quiet = await startGavel({ admin: { inspector: { sampleRate: 0 } }, bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=2` } } });
      const quietAdmin = await startAdminServer({ host: '127.0.0.1', port: 0, metrics: quiet.app.metrics as never, logger: silentLogger, readiness: () => true, mounts: quiet.app.adminMounts });
      try {
        await postJson(`${quiet.url}/openrtb2/auction`, bannerRequest({ alpha: {} }));
        const base = `http://127.0.0.1:${quietAdmin.port}`;
        expect((await getJson(`${base}/inspector/api/auctions`)).json).to.deep.equal([]);
        const replayed = await postJson(`${base}/inspector/api/replay`, bannerRequest({ alpha: {} }, { id: 'replayed' }));
        expect(replayed.json.status).to.equal(200);
        expect(replayed.json.response.seatbid[0].seat).to.equal('alpha');
        const record = (await getJson(`${base}/inspector/api/auctions/${replayed.json.recordId}`)).json as AuctionRecord;
        expect(record).to.include({ auctionId: 'replayed', replay: true, test: true });
      } finally {
        await quietAdmin.close();
        await quiet.close();
      }
    });

    it('answers a replay that is not JSON, or not an object, with a 400 saying so', async () => {
      const notJson = await fetch(`${adminUrl}/inspector/api/replay`, { method: 'POST', body: '{nope' });
      expect(notJson.status).to.equal(400);
      expect(((await notJson.json()) as { error: string }).error).to.contain('not JSON');
      const array = await postJson(`${adminUrl}/inspector/api/replay`, [1]);
      expect(array.status).to.equal(400);
      expect((await getJson(`${adminUrl}/inspector/nope`)).status).to.equal(404);
      expect((await getJson(`${adminUrl}/inspector/%E0%A4%A`)).status).to.equal(404);
    });
  });

  describe('in a browser', () => {
    let chromium: typeof import('playwright-core').chromium;
    let profile: string;
    before(async function () {
      if (!existsSync(CHROMIUM)) this.skip();
      ({ chromium } = await import('playwright-core'));
      profile = mkdtempSync(join(tmpdir(), 'gavel-inspector-chromium-'));
    });
    after(() => profile && rmSync(profile, { recursive: true, force: true }));

    async function withPage<T>(use: (page: import('playwright-core').Page) => Promise<T>): Promise<T> {
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        viewport: { width: 1400, height: 1000 },
        deviceScaleFactor: 1,
      });
      try {
        return await use(context.pages()[0] ?? (await context.newPage()));
      } finally {
        await context.close();
      }
    }

    it('draws three bidders as three bars, the slow one past the deadline line, and shows the winner’s targeting', async () => {
      const answer = await postJson(`${gavel.url}/openrtb2/auction`, auctionRequest());
      expect(answer.status).to.equal(200);
      const { json: list } = await getJson(`${adminUrl}/inspector/api/auctions`);
      const id = (list as Array<{ id: string; auctionId: string }>).find((entry) => entry.auctionId === 'inspected-1')!.id;
      await settledRecord(id);
      await withPage(async (page) => {
        await page.goto(`${adminUrl}/inspector`);
        await page.click(`a[href="/inspector/${id}"]`);
        await page.waitForSelector('#timeline');
        const screenshot = await page.locator('#timeline').screenshot();
        if (process.env.GAVEL_INSPECTOR_SCREENSHOT) writeFileSync(process.env.GAVEL_INSPECTOR_SCREENSHOT, screenshot);
        const image = decodePng(screenshot);
        const answered = barsOf(image, rgb(TIMELINE_COLOURS.bid));
        const late = barsOf(image, rgb(TIMELINE_COLOURS.timeout));
        expect(answered, 'bars of the two bidders that bid').to.have.length(2);
        expect(late, 'the bar of the slow bidder').to.have.length(1);
        const deadline = columnOf(image, rgb(TIMELINE_COLOURS.deadline));
        expect(deadline).to.be.greaterThan(0);
        for (const bar of answered) expect(bar.right).to.be.lessThan(deadline);
        // The slow call is aborted when the auction stops waiting: its bar reaches the deadline line (to the pixel).
        expect(late[0]!.right, 'the slow bar reaches the deadline line').to.be.at.least(deadline - 1);
        expect(late[0]!.left).to.be.lessThan(deadline);
        expect(barsOf(image, rgb(TIMELINE_COLOURS.hook)), 'a bar per hook run').to.have.length(4);
        const targeting = await page.locator('#targeting').innerText();
        expect(targeting).to.contain('alpha').and.contain('hb_bidder=alpha').and.contain('hb_pb=2.00');
      });
    });

    it('replays a pasted request with test: 1 and shows its auction', async () => {
      await withPage(async (page) => {
        await page.goto(`${adminUrl}/inspector`);
        await page.fill('#replay-request', JSON.stringify(bannerRequest({ beta: {} }, { id: 'pasted-1' })));
        await Promise.all([page.waitForURL(/\/inspector\/a\d+$/), page.click('#replay')]);
        const heading = await page.locator('h1').innerText();
        expect(heading).to.contain('(replay)');
        expect(await page.locator('body').innerText()).to.contain('pasted-1').and.contain('test');
        const bars = barsOf(decodePng(await page.locator('#timeline').screenshot()), rgb(TIMELINE_COLOURS.bid));
        expect(bars).to.have.length(1);
      });
    });
  });
});
