/**
 * Pod durations (interface specification 2.2, reference behaviour section 9): how many imps a pod becomes, what
 * duration each imp asks for (which allowed duration a bid lands in is decided by the targeting service's brand
 * categories: plugins/gavel.targeting/categories.ts).
 */

/** The allowed durations, ascending and without repeats: the order a bid's duration is fitted in (2.2). */
export function allowedDurations(durationRangeSec: readonly number[]): number[] {
  return [...new Set(durationRangeSec)].sort((a, b) => a - b);
}

/** The duration bounds one imp of a pod asks bidders for. */
export interface ImpDuration {
  minduration?: number;
  maxduration: number;
}

/**
 * How many imps a pod becomes (see podImpDurations); cheap, so a caller can check a limit before building them.
 * `durationRangeSec` is the request's list as given: with exact durations its length counts, repeats included.
 */
export function podImpCount(podDurationSec: number, durationRangeSec: readonly number[], requireExact: boolean): number {
  if (durationRangeSec.length === 0) return 0;
  const count = Math.floor(podDurationSec / Math.min(...durationRangeSec));
  return requireExact ? Math.max(count, durationRangeSec.length) : count;
}

/**
 * The imps of one pod: `floor(pod / shortest)` of them, each asking for at most the longest allowed duration. With
 * exact durations there are at least as many imps as listed durations, and imp `i` asks for exactly
 * `durations[min(floor(i / floor(count / len)), len - 1)]` (reference behaviour 9): the list is read as the request
 * gives it, neither sorted nor rid of repeats, so a publisher orders the pod's slots (and weights one by repeating
 * it), as in Prebid Server.
 */
export function podImpDurations(podDurationSec: number, durationRangeSec: readonly number[], requireExact: boolean): ImpDuration[] {
  const count = podImpCount(podDurationSec, durationRangeSec, requireExact);
  if (!requireExact) {
    const longest = Math.max(...durationRangeSec);
    return Array.from({ length: count }, () => ({ maxduration: longest }));
  }
  const impsPerDuration = Math.floor(count / durationRangeSec.length);
  return Array.from({ length: count }, (_, i) => {
    const duration = durationRangeSec[Math.min(Math.floor(i / impsPerDuration), durationRangeSec.length - 1)]!;
    return { minduration: duration, maxduration: duration };
  });
}
