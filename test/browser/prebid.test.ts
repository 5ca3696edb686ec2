/**
 * Prebid.js (the pinned npm package, bundled by support/prebid-bundle.ts) on a publisher's page in headless
 * Chromium, pointed at Gavel on another site over HTTPS, and an AMP page's RTC callouts. Pending when
 * /usr/bin/chromium is missing (.ci/run installs it). A failing scenario leaves a screenshot and the console under
 * ARTIFACTS_DIR (`artifacts/browser-suite`, or GAVEL_TEST_BROWSER_ARTIFACTS). docs/prebidjs.md describes the setup these
 * scenarios check.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { titledSnippets } from '../support/doc-snippets.js';
import { chromiumInstalled, clearArtifacts, keepArtifacts, launchChromium, openPage, type ScenarioPage, type SuiteBrowser } from './support/browser.js';
import { startStand, type Stand } from './support/stand.js';
import { ampCallout, ampScenario, bannerScenario, documentedConfigScenario, cookieSyncScenario, nativeScenario, refusedRequestScenario, slowBidderScenario, videoScenario } from './scenarios.js';

describe('Prebid.js in Chromium against Gavel', function () {
  this.timeout(30_000);
  let browser: SuiteBrowser;
  let stand: Stand;
  let scenario: ScenarioPage | undefined;

  before(async function () {
    if (!chromiumInstalled()) this.skip();
    clearArtifacts();
    [browser, stand] = await Promise.all([launchChromium(), startStand()]);
  });
  after(async () => {
    await browser?.close();
    await stand?.close();
  });
  beforeEach(async () => {
    scenario = await openPage(browser);
  });
  afterEach(async function () {
    if (!scenario) return;
    if (this.currentTest?.state === 'failed') {
      const kept = await keepArtifacts(this.currentTest.fullTitle(), scenario);
      console.log(`    browser artifacts: ${kept.join(', ')}`);
    }
    await scenario.page.close();
    scenario = undefined;
  });

  it('banner: bids, getHighestCpmBids, targeting with hb_cache_id, the winner rendered', async () => {
    await bannerScenario(stand, scenario!);
  });

  it('instream video with cache.vastxml: every video bid has a vastUrl answering its VAST; the GAM URL has the cache key', async () => {
    await videoScenario(stand, scenario!);
  });

  it('native with Prebid.js’s own asset ids: assets map back by id, and the banner unit beside it still gets bids', async () => {
    await nativeScenario(stand, scenario!);
  });

  it('cookie sync, then /setuid through the bidder’s redirect, then the next auction carries user.buyeruid', async () => {
    await cookieSyncScenario(stand, scenario!);
  });

  it('gzip request bodies (s2sConfig.endpointCompression): the auction body goes gzipped with ?gzip=1 and is answered', async () => {
    const sent = stand.proxied.length;
    await bannerScenario(stand, scenario!, { endpointCompression: true });
    const auction = stand.proxied.slice(sent).find((request) => request.url.startsWith('/openrtb2/auction'))!;
    expect(new URL(auction.url, stand.gavelUrl).searchParams.get('gzip')).to.equal('1');
    expect([...auction.head.subarray(0, 2)]).to.deep.equal([0x1f, 0x8b]);
  });

  it('CORS with credentials: the page’s origin echoed with credentials allowed, and the uids cookie sent along', async () => {
    await scenario!.context.addCookies([{ name: 'uids', value: 'e30', domain: 'localhost', path: '/', secure: true, sameSite: 'None', httpOnly: true }]);
    const sent = stand.proxied.length;
    const answered = scenario!.page.waitForResponse((response) => response.url().startsWith(`${stand.gavelUrl}/openrtb2/auction`));
    await bannerScenario(stand, scenario!);
    const headers = await (await answered).allHeaders();
    expect(headers['access-control-allow-origin']).to.equal(stand.site);
    expect(headers['access-control-allow-credentials']).to.equal('true');
    const auction = stand.proxied.slice(sent).find((request) => request.url.startsWith('/openrtb2/auction'))!;
    expect(auction.headers.origin).to.equal(stand.site);
    expect(auction.headers.cookie).to.contain('uids=e30');
  });

  it('docs/prebidjs.md’s config as written: banner and video bids, hb_cache_id, a vastUrl per video bid, gzip', async () => {
    const snippet = titledSnippets(readFileSync(new URL('../../../docs/prebidjs.md', import.meta.url), 'utf8')).get('publisher-config.js');
    expect(snippet, 'docs/prebidjs.md has a publisher-config.js snippet').to.be.a('string');
    const sent = stand.proxied.length;
    await documentedConfigScenario(stand, scenario!, snippet!);
    const auction = stand.proxied.slice(sent).find((request) => request.url.startsWith('/openrtb2/auction'))!;
    expect([...auction.head.subarray(0, 2)], 'a gzip body').to.deep.equal([0x1f, 0x8b]);
  });

  it('a bidder slower than tmax: the others’ bids in time, its timeout error in bidderDone', async () => {
    await slowBidderScenario(stand, scenario!);
  });

  it('AMP: the rtc-config callout built from amphtml’s Prebid Server vendor template, with credentials, answered with targeting', async () => {
    await ampScenario(stand, scenario!);
  });

  it('AMP: another vendor’s template, with the amp-ad’s data-multi-size, offers the bidders both sizes', async () => {
    const calls = stand.bidder.received.length;
    const callout = await ampCallout(stand, scenario!, 'prebidrubicon', { REQUEST_ID: 'amp-sports-top', ACCOUNT_ID: 'pub-1' }, { 'data-multi-size': '320x50' });
    expect(new URL(callout.url).searchParams.get('ms')).to.equal('320x50');
    expect(callout.status, callout.text).to.equal(200);
    const sent = stand.bidder.received.slice(calls).find((call) => call.url.includes('name=beta'))!;
    const formats = (sent.body.imp as Array<{ banner: { format: Array<{ w: number; h: number }> } }>)[0]!.banner.format;
    expect(formats).to.deep.equal([{ w: 300, h: 250 }, { w: 320, h: 50 }]);
  });

  describe('negative check: the same scenarios against a broken Gavel turn red', () => {
    let broken: Stand;
    before(async () => {
      broken = await startStand({ garbage: ['alpha', 'nat', 'vida'] });
    });
    after(async () => broken?.close());

    /** The assertion a scenario failed with; none is a failure of this check. */
    async function failureOf(run: () => Promise<unknown>): Promise<Error> {
      try {
        await run();
      } catch (error) {
        return error as Error;
      }
      throw new Error('the scenario passed against a broken Gavel');
    }

    it('banner, with alpha answering garbage, fails', async () => {
      const failure = await failureOf(() => bannerScenario(broken, scenario!));
      expect(failure.name).to.equal('AssertionError');
      expect(failure.message).to.contain("expected [ 'beta 1.2' ] to deeply equal [ 'alpha 2.5', 'beta 1.2' ]");
    });

    it('native, with the native bidder answering garbage, fails', async () => {
      const failure = await failureOf(() => nativeScenario(broken, scenario!));
      expect(failure.name).to.equal('AssertionError');
      expect(failure.message).to.contain('the native bid in Prebid.js, its assets');
    });

    it('video, with one video bidder answering garbage, fails', async () => {
      const failure = await failureOf(() => videoScenario(broken, scenario!));
      expect(failure.name).to.equal('AssertionError');
      expect(failure.message).to.contain("expected [ 'vidb 1 video' ] to deeply equal [ 'vida 3 video', 'vidb 1 video' ]");
    });
  });

  it('an unknown bidder: the request refused with a 400 naming it, seen in bidderError and the console', async () => {
    const auction = await refusedRequestScenario(stand, scenario!, { bidder: 'nosuchbidder', params: {} });
    expect(auction.events.bidderError[0]!.responseText).to.equal(
      'Invalid request: request.imp[0].ext.prebid.bidder contains unknown bidder: nosuchbidder. Did you forget an alias in request.ext.prebid.aliases?\n',
    );
  });

  it('bad params: the request refused with a 400 naming the bidder and the field', async () => {
    const auction = await refusedRequestScenario(stand, scenario!, { bidder: 'strict', params: { placementId: true } });
    expect(auction.events.bidderError[0]!.responseText).to.equal(
      'Invalid request: request.imp[0].ext.prebid.bidder.strict failed validation.\nplacementId: Invalid type. Expected: [integer,string], given: boolean\n',
    );
  });
});
