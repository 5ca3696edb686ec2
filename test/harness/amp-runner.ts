import type { FixtureOutcome } from './fixture-outcome.js';

/** Placeholder until the amp fixture runner lands. */
export async function run(args: string[]): Promise<FixtureOutcome[]> {
  return [{ name: 'amp runner', ok: false, diffs: ['the amp fixture runner is not built yet; args: ' + args.join(' ')] }];
}
