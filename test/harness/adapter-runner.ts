import type { FixtureOutcome } from './fixture-outcome.js';

/** Placeholder until the adapter fixture runner lands. */
export async function run(args: string[]): Promise<FixtureOutcome[]> {
  return [{ name: 'adapter runner', ok: false, diffs: ['the adapter fixture runner is not built yet; args: ' + args.join(' ')] }];
}
