import type { Got } from 'got';

let loading: Promise<Got> | undefined;

/**
 * got, the client for outbound calls other than bidder calls (cache, stored data), imported on first use: hosts
 * that never make these calls don't carry it in memory.
 */
export function loadGot(): Promise<Got> {
  loading ??= import('got').then((module) => module.default);
  return loading;
}
