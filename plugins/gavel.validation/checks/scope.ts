import type { ModuleDeps } from '../../../core/api/index.js';
import type { BidderDirectory } from './bidder-directory.js';
import type { ValidationReport } from './report.js';
import { isPresent, type JsonObject } from './values.js';

export const NAMESPACES = ['svc', 'prebid'] as const;
export type Namespace = (typeof NAMESPACES)[number];

/** Both namespace orders, the preferred one first; shared by every request, so reading them allocates nothing. */
const NAMESPACE_ORDER: Readonly<Record<Namespace, readonly Namespace[]>> = {
  svc: ['svc', 'prebid'],
  prebid: ['prebid', 'svc'],
};

/**
 * Both `svc` and `prebid` are accepted in every ext object, so checks look at whichever the client wrote, the
 * request's own namespace first. Callers skip the namespaces an ext object does not hold.
 */
export function namespacesInOrder(preferred: Namespace): readonly Namespace[] {
  return NAMESPACE_ORDER[preferred];
}

/** The first service namespace an `ext` object holds, the request's own first; undefined when it holds neither. */
export function firstNamespaceIn(ext: JsonObject, preferred: Namespace): Namespace | undefined {
  for (const namespace of NAMESPACE_ORDER[preferred]) if (isPresent(ext[namespace])) return namespace;
  return undefined;
}

/**
 * Where the request-level options and their fields sit, e.g. `request.ext.prebid.targeting`. They depend only on
 * the namespace, so they are spelled once per namespace rather than once per request.
 */
export interface OptionsPaths {
  /** `request.ext.<ns>` */
  readonly options: string;
  readonly aliases: string;
  readonly bidAdjustmentFactors: string;
  readonly targeting: string;
  readonly priceGranularity: string;
  readonly mediaTypePriceGranularity: string;
  readonly cache: string;
  /** Spelled `ext.<ns>.storedrequest`, without `request.`, as Prebid Server clients know it. */
  readonly storedRequest: string;
}

function optionsPathsOf(namespace: Namespace): OptionsPaths {
  const options = `request.ext.${namespace}`;
  return {
    options,
    aliases: `${options}.aliases`,
    bidAdjustmentFactors: `${options}.bidadjustmentfactors`,
    targeting: `${options}.targeting`,
    priceGranularity: `${options}.targeting.pricegranularity`,
    mediaTypePriceGranularity: `${options}.targeting.mediatypepricegranularity`,
    cache: `${options}.cache`,
    storedRequest: `ext.${namespace}.storedrequest`,
  };
}

const OPTIONS_PATHS: Readonly<Record<Namespace, OptionsPaths>> = {
  svc: optionsPathsOf('svc'),
  prebid: optionsPathsOf('prebid'),
};

export function optionsPathsFor(namespace: Namespace): OptionsPaths {
  return OPTIONS_PATHS[namespace];
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
  /** Where the request-level options sit (under the declared namespace, else the request's). */
  optionsPaths: OptionsPaths;
  bidders: BidderDirectory;
  validateBidderParams: ModuleDeps['validateBidderParams'];
  report: ValidationReport;
  interstitial?: InterstitialSettings;
}

/**
 * `request.imp[<index>]`. Imp checks know an imp by its index and spell its paths only for a message, so that valid
 * imps cost no strings.
 */
export function impPath(index: number): string {
  return `request.imp[${index}]`;
}
