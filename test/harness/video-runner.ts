import type { FixtureOutcome } from './fixture-outcome.js';

/** Placeholder until the video fixture runner lands. */
export async function run(args: string[]): Promise<FixtureOutcome[]> {
  return [{ name: 'video runner', ok: false, diffs: ['the video fixture runner is not built yet; args: ' + args.join(' ')] }];
}
