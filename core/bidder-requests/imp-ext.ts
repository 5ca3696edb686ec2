import { isJsonObject, mergeOpenrtb2Member, openrtb2DecodeProblem, type AuctionContext, type Imp, type JsonObject } from '../api/index.js';

type Json = Record<string, unknown>;

/** The members of `imp.ext.<ns>` a bidder receives (Prebid Server's allowed list); the rest is the auction's. */
const IMP_OPTIONS_FOR_BIDDERS: ReadonlySet<string> = new Set(['is_rewarded_inventory', 'options']);

/** An imp that a bidder's first-party data made invalid: the request's 400 line. */
export class InvalidImpFpd {
  constructor(readonly message: string) {}
}

/**
 * Imp first-party data an imp cannot take (a member of the wrong JSON type for its OpenRTB field): Prebid Server's
 * merge into its Imp struct fails, and it then asks no bidder at all.
 */
export class UndecodableImpFpd {
  constructor(readonly message: string) {}
}

/** Re-checks an imp first-party data changed, `index` its place in the request (RequestValidator.validateImp). */
export type ImpRecheck = (imp: Imp, index: number, context: AuctionContext) => string | undefined;

/**
 * One imp as a bidder receives it: `imp.ext.<ns>` narrowed to what a bidder may see, and the imp's first-party data
 * for this bidder (`imp.ext.<ns>.imp.<bidder>`) merged over it. The same imp object when nothing changes. Returns
 * the 400 line when the merged imp is no longer a valid imp.
 */
export function impFor(imp: Imp, bidder: string, context: AuctionContext, recheck: ImpRecheck | undefined, auctionImps: readonly Imp[]): Imp | InvalidImpFpd | UndecodableImpFpd {
  const namespace = context.namespace;
  const ext = imp.ext;
  const options = isJsonObject(ext) && isJsonObject(ext[namespace]) ? (ext[namespace] as Json) : undefined;
  if (!options) return imp;
  let narrowed: Json | undefined;
  let kept = true;
  for (const key of Object.keys(options)) {
    if (IMP_OPTIONS_FOR_BIDDERS.has(key)) (narrowed ??= {})[key] = options[key];
    else kept = false;
  }
  if (kept) return imp;
  // Built without the auction's options rather than copied and then deleted from: a delete can leave the copy a
  // slow dictionary-mode object, and every bidder's imp has one.
  const newExt: Json = {};
  for (const key in ext) {
    if (key !== namespace) newExt[key] = (ext as Json)[key];
    else if (narrowed) newExt[key] = narrowed;
  }

  // By the bidder's name exactly, as Prebid Server's splitImps looks it up.
  const own = isJsonObject(options.imp) && Object.hasOwn(options.imp, bidder) ? options.imp[bidder] : undefined;
  const fpd = isJsonObject(own) ? own : undefined;
  if (!fpd) return { ...imp, ext: newExt };
  // Prebid Server's words, naming the imp by its place in the request (mergeImpFPD).
  if (openrtb2DecodeProblem({ imp: [fpd] } as JsonObject) !== undefined) return new UndecodableImpFpd(`invalid first party data for imp[${indexOf(imp, auctionImps)}]`);
  // Laid over the imp as Prebid Server's MergeClone decodes it (`null` leaves a plain number such as bidfloor).
  const merged = mergeOpenrtb2Member('imp', imp as unknown as JsonObject, fpd) as Json;
  // The bidder's ext is the one built here: first-party data does not reach into it.
  merged.ext = newExt;
  if (!recheck) return merged as Imp;
  // Prebid Server's validator names the imp by its place in the request, and prints its error list as Go prints a slice.
  const problem = recheck(merged as Imp, indexOf(imp, auctionImps), context);
  if (problem !== undefined) return new InvalidImpFpd(`merging bidder imp first party data for imp ${imp.id} results in an invalid imp: [${problem}]`);
  return merged as Imp;
}

function indexOf(imp: Imp, auctionImps: readonly Imp[]): number {
  return auctionImps.findIndex((candidate) => candidate.id === imp.id);
}
