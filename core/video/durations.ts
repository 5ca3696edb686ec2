/**
 * Pod durations (interface specification 2.2, reference behaviour section 9): how many imps a pod becomes, what
 * duration each imp asks for (which allowed duration a bid lands in is decided by the targeting service's brand
 * categories: plugins/gavel.targeting/categories.ts).
 */

/** The allowed durations, ascending and without repeats: every rule below reads them in that order. */
export function allowedDurations(durationRangeSec: readonly number[]): number[] {
  return [...new Set(durationRangeSec)].sort((a, b) => a - b);
}

/** The duration bounds one imp of a pod asks bidders for. */
export interface ImpDuration {
  minduration?: number;
  maxduration: number;
}

/** How many imps a pod becomes (see podImpDurations); cheap, so a caller can check a limit before building them. */
export function podImpCount(podDurationSec: number, allowed: readonly number[], requireExact: boolean): number {
  if (allowed.length === 0) return 0;
  const count = Math.floor(podDurationSec / allowed[0]!);
  return requireExact ? Math.max(count, allowed.length) : count;
}

/**
 * The imps of one pod: `floor(pod / shortest)` of them, each asking for at most the longest allowed duration. With
 * exact durations there are at least as many imps as durations, and the imps are shared out among the durations in
 * order (each imp asks for exactly one of them), the last duration taking any remainder.
 */
export function podImpDurations(podDurationSec: number, allowed: readonly number[], requireExact: boolean): ImpDuration[] {
  const count = podImpCount(podDurationSec, allowed, requireExact);
  const longest = allowed[allowed.length - 1]!;
  if (!requireExact) return Array.from({ length: count }, () => ({ maxduration: longest }));

  const impsPerDuration = Math.floor(count / allowed.length);
  return Array.from({ length: count }, (_, i) => {
    const duration = allowed[Math.min(Math.floor(i / impsPerDuration), allowed.length - 1)]!;
    return { minduration: duration, maxduration: duration };
  });
}
