import type { ModuleDeps } from '../../../core/api/index.js';
import type { BidderDirectory } from './bidder-directory.js';
import type { ValidationReport } from './report.js';
import { isPresent, type JsonObject } from './values.js';

export const NAMESPACES = ['svc', 'prebid'] as const;
export type Namespace = (typeof NAMESPACES)[number];

/**
 * The service namespaces an `ext` object uses, the request's own first. Both `svc` and `prebid` are accepted in
 * every ext object, so checks look at whichever the client wrote.
 */
export function namespaceKeysIn(ext: JsonObject, preferred: Namespace): Namespace[] {
  const order: Namespace[] = preferred === 'svc' ? ['svc', 'prebid'] : ['prebid', 'svc'];
  return order.filter((key) => isPresent(ext[key]));
}

/** `device.ext.<ns>.interstitial`: the smallest share of the largest size an interstitial may shrink to. */
export interface InterstitialSettings {
  minWidthPercent: number;
  minHeightPercent: number;
}

/** What every check of one request shares. */
export interface ValidationScope {
  /** The namespace the request used (HookContext.namespace). */
  namespace: Namespace;
  /** The namespace key `request.ext` actually holds (the request's own first), if any. */
  declaredNamespace?: Namespace;
  /** Where the request-level options sit, e.g. `request.ext.prebid`. */
  optionsPath: string;
  bidders: BidderDirectory;
  validateBidderParams: ModuleDeps['validateBidderParams'];
  report: ValidationReport;
  interstitial?: InterstitialSettings;
}
