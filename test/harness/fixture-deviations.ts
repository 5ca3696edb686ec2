/**
 * Where Gavel answers differently from a Prebid Server fixture on purpose, because our specification decides
 * otherwise or because the fixture records an artefact of Prebid Server's test harness rather than of Prebid Server.
 *
 * A deviation edits the fixture's expectation to what Gavel must answer, so the fixture still checks everything else,
 * and the edited part checks our own rule. Each edit names the value it replaces: when the fixture changes upstream
 * (the value is no longer there), the edit no longer applies and the fixture fails until the deviation is reviewed.
 * The runner reports every fixture that passed with a deviation, and why.
 */

import type { FixtureOutcome } from './fixture-outcome.js';

type Json = Record<string, any>;

/** One edit of a fixture, addressed by a JSON pointer (RFC 6901) from the fixture's root. */
export interface FixtureEdit {
  path: string;
  /** The value the fixture holds there now; the edit is stale when it holds something else. */
  was: unknown;
  /** The value Gavel must answer instead; absent removes the member. */
  value?: unknown;
}

export interface FixtureDeviation {
  /** Why Gavel answers differently, citing the specification section or the harness artefact. */
  reason: string;
  edits: FixtureEdit[];
  /**
   * The fixture is not run at all: it needs a feature Gavel does not have. Reported as not run, never as passed, so
   * the gap stays visible in every conformance run.
   */
  notBuilt?: true;
}

const EXACT_BUCKETS =
  'reference-behaviour.md section 4: buckets are computed exactly ("never print 0.30000000000000004"), so 0.30 in ' +
  'steps of 0.10 is bucket 0.30; Prebid Server floors the float quotient 2.9999999999999996 to bucket 0.20';
const CODE_3 =
  'interface-spec.md section 7.1 numbers a bad server response 3 (Prebid Server numbers it 4, after its blocked-app 3); ' +
  'issue 13: where the two clash, the specification wins';

/** Edits that rewrite a targeting value from Prebid Server's float bucket to the exact one. */
function buckets(bid: string, changes: Record<string, [was: string, value: string]>): FixtureEdit[] {
  return Object.entries(changes).map(([key, [was, value]]) => ({ path: `${bid}/ext/prebid/targeting/${key}`, was, value }));
}

function videoBuckets(bid: string, was: string, value: string, catDur: string): FixtureEdit[] {
  return buckets(bid, {
    hb_pb: [was, value],
    hb_pb_appnexus: [was, value],
    hb_pb_cat_dur: [`${was}${catDur}`, `${value}${catDur}`],
    hb_pb_cat_dur_appnex: [`${was}${catDur}`, `${value}${catDur}`],
  });
}

const BID = (seat: number, bid: number) => `/response/bids/seatbid/${seat}/bid/${bid}`;

function badServerResponseCodes(): FixtureEdit[] {
  return ['appnexus', 'rubicon'].map((bidder) => ({ path: `/response/ext/errors/${bidder}/0/code`, was: 4, value: 3 }));
}

export const FIXTURE_DEVIATIONS: Readonly<Record<string, FixtureDeviation>> = {
  'exchange/append-bidder-names.json': {
    reason: EXACT_BUCKETS,
    edits: [
      ...videoBuckets(BID(0, 0), '0.20', '0.30', '_VideoGames_30s_appnexus'),
      ...videoBuckets(BID(0, 1), '0.50', '0.60', '_HomeDecor_0s_appnexus'),
    ],
  },
  'exchange/debuglog_enabled.json': {
    reason: EXACT_BUCKETS,
    edits: [...videoBuckets(BID(0, 0), '0.20', '0.30', '_VideoGames_30s'), ...videoBuckets(BID(0, 1), '0.50', '0.60', '_HomeDecor_0s')],
  },
  'exchange/generate-bid-id-error.json': {
    reason: EXACT_BUCKETS,
    edits: videoBuckets(BID(0, 0), '0.20', '0.30', '_VideoGames_30s_appnexus'),
  },
  'exchange/multi-bids-error.json': {
    reason: EXACT_BUCKETS,
    edits: buckets(BID(1, 0), { hb_pb_appnexus: ['0.20', '0.30'] }),
  },
  'exchange/multi-bids-with-extra-bids.json': {
    reason: EXACT_BUCKETS,
    edits: buckets(BID(1, 0), { hb_pb_appnexus: ['0.20', '0.30'] }),
  },
  'exchange/extra-bids.json': {
    reason: EXACT_BUCKETS,
    edits: buckets(BID(2, 0), { hb_pb_appnexus: ['0.20', '0.30'] }),
  },
  'exchange/bid_response_validation_enforce_creative.json': {
    reason: CODE_3,
    edits: badServerResponseCodes(),
  },
  'exchange/bid_response_validation_enforce_secure.json': {
    reason: CODE_3,
    edits: badServerResponseCodes(),
  },
  'exchange/bid_response_validation_warn_secure.json': {
    reason: CODE_3,
    edits: badServerResponseCodes(),
  },
  'account-malformed/malformed-acct.json': {
    reason: 'Standards: never a 500; a host-side problem that the publisher cannot fix is a 503 (the message is Prebid Server\'s)',
    edits: [{ path: '/expectedReturnCode', was: 500, value: 503 }],
  },
};

/**
 * The fixture with its deviation applied, and the reason; or the reason the deviation no longer applies. `was` may
 * be the exact value or a probe of a large one: `{$id}` (an object with that id), `{$length}` (an array of that
 * length), `{$has}` (an object with that member).
 */
export function applyDeviation<T>(
  label: string,
  fixture: T,
  deviations: Readonly<Record<string, FixtureDeviation>> = FIXTURE_DEVIATIONS,
): { fixture: T; reason?: string; stale?: string; notBuilt?: true } {
  const deviation = Object.hasOwn(deviations, label) ? deviations[label] : undefined;
  if (!deviation) return { fixture };
  if (deviation.notBuilt) return { fixture, reason: deviation.reason, notBuilt: true };
  const edited = structuredClone(fixture) as unknown as Json;
  for (const edit of deviation.edits) {
    const keys = edit.path.split('/').slice(1).map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop()!;
    let parent: any = edited;
    for (const key of keys) parent = parent?.[key];
    const current = parent !== null && typeof parent === 'object' && Object.hasOwn(parent, last) ? parent[last] : undefined;
    if (current === undefined || !matches(edit.was, current)) {
      return { fixture, stale: `deviation no longer applies: ${edit.path} holds ${JSON.stringify(current)?.slice(0, 120)}, not ${JSON.stringify(edit.was)}; review test/harness/fixture-deviations.ts` };
    }
    if (!('value' in edit)) {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else parent[last] = edit.value;
  }
  return { fixture: edited as unknown as T, reason: deviation.reason };
}

function matches(was: unknown, current: any): boolean {
  if (was !== null && typeof was === 'object' && !Array.isArray(was)) {
    const probe = was as { $id?: string; $length?: number; $has?: string };
    if (probe.$id !== undefined) return current?.id === probe.$id;
    if (probe.$length !== undefined) return Array.isArray(current) && current.length === probe.$length;
    if (probe.$has !== undefined) return current !== null && typeof current === 'object' && Object.hasOwn(current, probe.$has);
  }
  return JSON.stringify(was) === JSON.stringify(current);
}

/**
 * Checks a fixture with its deviation applied; a stale deviation fails the fixture. `deviations` is the table above
 * unless a test gives its own (no fixture is marked not built today, yet the mechanism stays tested).
 */
export async function checkWithDeviation<T>(
  label: string,
  fixture: T,
  check: (fixture: T) => Promise<FixtureOutcome>,
  deviations: Readonly<Record<string, FixtureDeviation>> = FIXTURE_DEVIATIONS,
): Promise<FixtureOutcome> {
  const applied = applyDeviation(label, fixture, deviations);
  if (applied.stale) return { name: label, ok: false, diffs: [applied.stale] };
  if (applied.notBuilt) return { name: label, ok: false, diffs: [], notRun: applied.reason };
  const outcome = await check(applied.fixture);
  return applied.reason ? { ...outcome, deviation: applied.reason } : outcome;
}
