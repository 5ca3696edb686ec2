import { isJsonObject, type Imp } from '../api/index.js';
import { mergePatch } from '../stored/index.js';

type Json = Record<string, unknown>;

/** The members of `imp.ext.<ns>` a bidder receives (Prebid Server's allowed list); the rest is the auction's. */
const IMP_OPTIONS_FOR_BIDDERS: ReadonlySet<string> = new Set(['is_rewarded_inventory', 'options']);

const MEDIA_TYPES = ['banner', 'video', 'audio', 'native'] as const;

/**
 * An imp that a bidder's first-party data made invalid: the request's 400 line, once the imp's position in the
 * auction's request is known (Prebid Server's validator names imps by index). Prebid Server prints its validator's
 * error list as Go prints a slice, in brackets.
 */
export class InvalidImpFpd {
  constructor(
    readonly impId: string,
    private readonly problemAt: (index: number) => string,
  ) {}

  message(index: number): string {
    return `merging bidder imp first party data for imp ${this.impId} results in an invalid imp: [${this.problemAt(index)}]`;
  }
}

/**
 * One imp as a bidder receives it: `imp.ext.<ns>` narrowed to what a bidder may see, and the imp's first-party data
 * for this bidder (`imp.ext.<ns>.imp.<bidder>`) merged over it. The same imp object when nothing changes. Returns
 * the 400 line when the merged imp is no longer a valid imp.
 */
export function impFor(imp: Imp, bidder: string, namespace: string): Imp | InvalidImpFpd {
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

  const fpd = isJsonObject(options.imp) ? impFpdFor(options.imp, bidder) : undefined;
  if (!fpd) return { ...imp, ext: newExt };
  const merged = mergePatch(imp, fpd) as Json;
  // The bidder's ext is the one built here: first-party data does not reach into it.
  merged.ext = newExt;
  const problem = impProblem(merged);
  if (problem) return new InvalidImpFpd(imp.id, problem);
  return merged as Imp;
}

function impFpdFor(byBidder: Json, bidder: string): Json | undefined {
  if (isJsonObject(byBidder[bidder])) return byBidder[bidder] as Json;
  const lower = bidder.toLowerCase();
  for (const key of Object.keys(byBidder)) if (key.toLowerCase() === lower && isJsonObject(byBidder[key])) return byBidder[key] as Json;
  return undefined;
}

/**
 * What makes an imp unusable after first-party data changed it, with Prebid Server's validator messages (ValidateImp,
 * its first failing rule; bidder params and native markup are not re-checked); undefined when nothing does.
 */
function impProblem(imp: Json): ((index: number) => string) | undefined {
  if (typeof imp.id !== 'string' || imp.id === '') return (i) => `request.imp[${i}] missing required field: "id"`;
  if (Array.isArray(imp.metric) && imp.metric.length > 0) return (i) => `request.imp[${i}].metric is not yet supported by prebid-server. Support may be added in the future`;
  if (!MEDIA_TYPES.some((type) => isJsonObject(imp[type]))) return (i) => `request.imp[${i}] must contain at least one of "banner", "video", "audio", or "native"`;
  const banner = imp.banner;
  if (isJsonObject(banner)) {
    for (const field of ['w', 'h'] as const) if (typeof banner[field] === 'number' && (banner[field] as number) < 0) return (i) => `request.imp[${i}].banner.${field} must be a positive number`;
    if (Array.isArray(banner.format)) {
      for (let f = 0; f < banner.format.length; f++) {
        const format = banner.format[f];
        if (!isJsonObject(format)) continue;
        for (const field of ['w', 'h'] as const) if (typeof format[field] === 'number' && (format[field] as number) < 0) return (i) => `request.imp[${i}].banner.format[${f}].${field} must be a positive number`;
      }
    }
  }
  return undefined;
}
