import { BidderErrorCode, type AuctionContext, type BidderRequest, type BidRequest, type Imp } from '../api/index.js';
import { userWithPermittedEids, planEidPermissions } from './eids.js';
import { applyFirstPartyData, planFirstPartyData } from './first-party-data.js';
import { impFor, InvalidImpFpd, UndecodableImpFpd, type ImpRecheck } from './imp-ext.js';
import { planRequestExt, requestExtFor } from './request-ext.js';
import { planSchains, sourceFor } from './schain.js';

export type { ImpRecheck } from './imp-ext.js';

type Json = Record<string, unknown>;

/** Host settings: what the host adds to every bidder's request. */
export interface BidderRequestSettings {
  /** The host's own supply chain node, appended to every bidder's `source.schain` (`auction.hostSchainNode`). */
  hostSchainNode?: Json;
  /** The host's identity, sent as `ext.<ns>.server` (`externalurl`, `gvlid`, `datacenter`). */
  server?: Json;
}

/**
 * What each bidder may see, as Prebid Server's exchange decides it (exchange/utils.go, firstpartydata/, schain/):
 * called once per auction right after imp splitting, it narrows every bidder's share of the request:
 * - request-level `ext.<ns>`: only the bidder's own `bidderparams`, alias, alternate codes and multibid entries,
 *   and the members every bidder may receive (see request-ext.ts);
 * - `imp.ext.<ns>`: only `is_rewarded_inventory` and `options`, with the imp's first-party data for this bidder
 *   (`imp.ext.<ns>.imp.<bidder>`) merged into the imp;
 * - `source.schain`: the bidder's chain from `ext.<ns>.schains` (or the wildcard's) and the host's node;
 * - `user.eids`: only the eids `ext.<ns>.data.eidpermissions` lets this bidder see;
 * - first-party data: `ext.<ns>.data.bidders` and `ext.<ns>.bidderconfig` (not on the video endpoint, as in
 *   Prebid Server).
 * Everything per request is read once; per bidder, only the branches that differ are copied.
 */
export class BidderRequestShaper {
  constructor(private readonly settings: BidderRequestSettings) {}

  /** Narrows every share in place. Returns the 400 lines when the request's per-bidder settings contradict. */
  shape(request: BidRequest, shares: BidderRequest[], context: AuctionContext, recheck?: ImpRecheck): string[] | undefined {
    if (shares.length === 0) return undefined;
    const namespace = context.namespace;
    const ext = planRequestExt(request.ext, namespace, context.account, this.settings.server);
    const schains = planSchains(ext.options, this.settings.hostSchainNode, namespace);
    if (schains && 'error' in schains) return [schains.error];
    const eids = planEidPermissions(ext.options);
    const fpd = resolvesFirstPartyData(request, context.endpoint) ? planFirstPartyData(request, ext.options, namespace) : undefined;
    if (fpd && 'errors' in fpd) return fpd.errors;

    const errors: string[] = [];
    const undecodable: string[] = [];
    for (const share of shares) {
      share.auction = request;
      const own = share.request;
      if (!ext.unchanged) {
        // Set even when nothing is left (undefined, which JSON leaves out): deleting a key from the split's copy would
        // turn it into a slow dictionary-mode object.
        own.ext = requestExtFor(ext, share.bidder, share.adapter);
      }
      if (schains) own.source = sourceFor(schains, share.bidder, own.source) as BidRequest['source'];
      if (eids) own.user = userWithPermittedEids(eids, share.bidder, own.user);
      if (fpd) applyFirstPartyData(fpd, share.bidder, own);
      own.imp = impsFor(own.imp, share.bidder, context, request.imp, recheck, errors, undecodable);
    }
    if (errors.length > 0) return errors;
    if (undecodable.length > 0) {
      // Prebid Server's split fails as a whole: no bidder is asked (the answer's nbr says so), and its error reaches no
      // answer, whose auction errors are written only beside a bidder asked. Recorded here for the logs and analytics.
      shares.length = 0;
      context.fail(namespace, { code: BidderErrorCode.Unknown, message: undecodable[0]! });
    }
    return undefined;
  }
}

/**
 * Prebid Server resolves first-party data for its web, app and AMP requests only (exchange.go, by request type): not
 * on the video endpoint, nor for a DOOH request on the auction endpoint (its type is DOOH when the request has
 * `dooh` and no `app`). Those bidders get the request's data as it is, and `data.bidders` / `bidderconfig` are ignored.
 */
function resolvesFirstPartyData(request: BidRequest, endpoint: AuctionContext['endpoint']): boolean {
  if (endpoint === 'video') return false;
  return request.app !== undefined || request.dooh === undefined;
}

/** The bidder's imps; the same array when none changes. */
function impsFor(imps: Imp[], bidder: string, context: AuctionContext, auctionImps: readonly Imp[], recheck: ImpRecheck | undefined, errors: string[], undecodable: string[]): Imp[] {
  let changed: Imp[] | undefined;
  for (let i = 0; i < imps.length; i++) {
    const imp = impFor(imps[i]!, bidder, context, recheck, auctionImps);
    if (imp instanceof InvalidImpFpd) {
      errors.push(imp.message);
      continue;
    }
    if (imp instanceof UndecodableImpFpd) {
      undecodable.push(imp.message);
      continue;
    }
    if (imp !== imps[i]) (changed ??= imps.slice())[i] = imp;
  }
  return changed ?? imps;
}
