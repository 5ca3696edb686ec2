import type { FixtureOutcome } from './fixture-outcome.js';

/** Placeholder until the auction fixture runner lands. */
export async function run(args: string[]): Promise<FixtureOutcome[]> {
  return [{ name: 'auction runner', ok: false, diffs: ['the auction fixture runner is not built yet; args: ' + args.join(' ')] }];
}
