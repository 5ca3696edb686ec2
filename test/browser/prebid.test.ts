/**
 * Prebid.js (the pinned npm package, bundled by support/prebid-bundle.ts) on a publisher's page in headless
 * Chromium, pointed at Gavel on another site over HTTPS. Pending when /usr/bin/chromium is missing (.ci/run installs
 * it). A failing scenario leaves a screenshot and the console under ARTIFACTS_DIR.
 */
import { expect } from 'chai';
import { ARTIFACTS_DIR, chromiumInstalled, keepArtifacts, launchChromium, openPage, type ScenarioPage, type SuiteBrowser } from './support/browser.js';
import { startStand, type Stand } from './support/stand.js';
import { bannerScenario, cookieSyncScenario, nativeScenario, slowBidderScenario, unknownBidderAndBadParamsScenario, videoScenario } from './scenarios.js';

describe('Prebid.js in Chromium against Gavel', function () {
  this.timeout(30_000);
  let browser: SuiteBrowser;
  let stand: Stand;
  let scenario: ScenarioPage | undefined;

  before(async function () {
    if (!chromiumInstalled()) this.skip();
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

  it('a bidder slower than tmax: the others’ bids in time, its timeout error in bidderDone', async () => {
    await slowBidderScenario(stand, scenario!);
  });

  it('an unknown bidder and bad params', async () => {
    const auction = await unknownBidderAndBadParamsScenario(stand, scenario!);
    console.log(JSON.stringify(auction.events.bidderDone, null, 1));
    console.log(scenario!.console.join('\n'));
  });
});
