/**
 * Prebid.js (the pinned npm package, bundled by support/prebid-bundle.ts) on a publisher's page in headless
 * Chromium, pointed at Gavel on another site over HTTPS. Pending when /usr/bin/chromium is missing (.ci/run installs
 * it). A failing scenario leaves a screenshot and the console under ARTIFACTS_DIR.
 */
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { ARTIFACTS_DIR, chromiumInstalled, keepArtifacts, launchChromium, openPage, type ScenarioPage } from './support/browser.js';
import { startStand, type Stand } from './support/stand.js';
import { bannerScenario } from './scenarios.js';

describe('Prebid.js in Chromium against Gavel', function () {
  this.timeout(30_000);
  let browser: Browser;
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
    await scenario.context.close();
    scenario = undefined;
  });

  it('banner: bids, getHighestCpmBids, targeting with hb_cache_id, the winner rendered', async () => {
    await bannerScenario(stand, scenario!);
  });
});
