/**
 * `npm run conformance -- <mode> ...`: runs Prebid Server fixtures against Gavel and prints a diff per failure and
 * a closing `N passed, M failed` line. Modes:
 *   adapter <bidder> <dir>   adapter fixtures (mockBidRequest / httpCalls / expectedBidResponses)
 *   auction <dir>            endpoint fixtures for POST /openrtb2/auction
 *   amp <dir>                AMP fixtures for GET /openrtb2/amp
 *   video <dir>              video request samples for POST /openrtb2/video
 *   exchange <dir>           exchange fixtures: one auction, every bidder mocked (what each bidder receives)
 */
import 'reflect-metadata';
import type { FixtureOutcome } from './fixture-outcome.js';

const runners: Record<string, () => Promise<{ run(args: string[]): Promise<FixtureOutcome[]> }>> = {
  adapter: () => import('./adapter-runner.js'),
  auction: () => import('./auction-runner.js'),
  amp: () => import('./amp-runner.js'),
  video: () => import('./video-runner.js'),
  exchange: () => import('./exchange-runner.js'),
};

async function main(): Promise<void> {
  const [mode, ...args] = process.argv.slice(2);
  const load = mode ? runners[mode] : undefined;
  if (!load) {
    console.error(`usage: npm run conformance -- <${Object.keys(runners).join('|')}> ...`);
    process.exitCode = 2;
    return;
  }
  const outcomes = await (await load()).run(args);
  let failed = 0;
  let notRun = 0;
  for (const outcome of outcomes) {
    if (outcome.notRun) {
      notRun += 1;
      console.log(`NOT RUN ${outcome.name}: ${outcome.notRun}`);
      continue;
    }
    if (outcome.ok) {
      if (outcome.deviation) console.log(`PASS with a deviation ${outcome.name}: ${outcome.deviation}`);
      continue;
    }
    failed += 1;
    console.log(`FAIL ${outcome.name}`);
    for (const line of outcome.diffs) console.log(`    ${line}`);
  }
  const deviations = outcomes.filter((outcome) => outcome.ok && outcome.deviation).length;
  if (deviations > 0) console.log(`${deviations} of the passed fixtures pass with a documented deviation (test/harness/fixture-deviations.ts)`);
  if (notRun > 0) console.log(`${notRun} fixtures not run: they need features Gavel does not have (test/harness/fixture-deviations.ts)`);
  console.log(`${outcomes.length - failed - notRun} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

await main();
