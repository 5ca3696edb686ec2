import { randomUUID } from 'node:crypto';
import { isJsonObject, RESERVED_IMP_EXT_KEYS, type BidRequest, type Imp } from '../api/index.js';
import { unifyNamespaces, type Namespace } from '../auction/namespace.js';
import { mergePatch } from '../stored/index.js';
import { allowedDurations, podImpCount, podImpDurations } from './durations.js';
import type { Pod, RejectedPod, VideoRequest } from './video-request.js';

type Json = Record<string, unknown>;

/** A pod that made it into the OpenRTB request. */
export interface PlannedPod {
  /** Position of the pod in `podconfig.pods`. */
  index: number;
  pod: Pod;
  impIds: string[];
  /** Lower-case names of the bidders its stored imp offers it to, for placing their errors under it. */
  bidders: ReadonlySet<string>;
}

export interface ExpandedVideoRequest {
  request: BidRequest;
  pods: PlannedPod[];
  /** Pods that could not be expanded (stored imp missing, too short for any ad, over the imp budget). */
  rejectedPods: RejectedPod[];
}

export interface ExpandOptions {
  namespace: Namespace;
  /** Stored imps by configid (absent when not found). */
  storedImps: ReadonlyMap<string, unknown>;
  /** The request's price granularity as the targeting stage should read it (absent: the default). */
  priceGranularity: unknown;
  /** Brand categories to translate and deduplicate on (`includebrandcategory`), when the request asks for them. */
  brandCategories?: BrandCategories;
  maxImps: number;
}

/** `includebrandcategory` of a video request, as the auction's targeting reads it. */
export interface BrandCategories {
  primaryadserver: number;
  publisher: string;
  /** `false`: the bid's IAB category is keyed as it is, no ad server mapping needed. */
  translatecategories?: boolean;
}

/** Top-level OpenRTB fields a (stored) video request may carry that go to the auction unchanged. */
const OPENRTB_PASSTHROUGH = ['id', 'test', 'at', 'tmax', 'wseat', 'bseat', 'allimps', 'cur', 'wlang', 'wlangb', 'bcat', 'cattax', 'badv', 'bapp', 'source', 'device', 'ext'];

/**
 * Expands a checked video request into one OpenRTB request (reference behaviour section 9): each pod becomes
 * `floor(pod / shortest duration)` imps `<podid>_<i>` built on the pod's stored imp, with the request's `video`
 * copied in; site or app (with the content), device, user, regs and the request's OpenRTB extras come along; the
 * auction is asked for bidder targeting keys and for the VAST of video bids to be cached.
 */
export function expandVideoRequest(video: VideoRequest, pods: Pod[], options: ExpandOptions): ExpandedVideoRequest {
  const durationRangeSec = video.podconfig.durationrangesec;
  const requireExact = video.podconfig.requireexactduration === true;
  const planned: PlannedPod[] = [];
  const rejectedPods: RejectedPod[] = [];
  const imps: Imp[] = [];

  video.podconfig.pods.forEach((pod, index) => {
    if (!pods.includes(pod)) return;
    const rejectWith = (message: string) => rejectedPods.push({ index, podid: pod.podid, messages: [message] });
    const reject = (message: string) => rejectWith(`${message}, Pod index: ${index}`);
    const stored = options.storedImps.get(pod.configid);
    if (!isJsonObject(stored)) {
      // Prebid Server's words for a configid it cannot load (missing or not an imp), naming the pod by its id.
      rejectWith(`unable to load configid ${pod.configid}, Pod id: ${pod.podid}`);
      return;
    }
    const count = podImpCount(pod.adpoddurationsec, durationRangeSec, requireExact);
    if (count === 0) {
      reject(`pod ${pod.podid} lasts ${pod.adpoddurationsec} s, shorter than the shortest allowed ad duration (${Math.min(...durationRangeSec)} s)`);
      return;
    }
    if (imps.length + count > options.maxImps) {
      reject(`pod ${pod.podid} would need ${count} imps, more than the ${options.maxImps - imps.length} left of this host's limit of ${options.maxImps} per video request`);
      return;
    }
    const durations = podImpDurations(pod.adpoddurationsec, durationRangeSec, requireExact);
    const podImps = durations.map((duration, i) => podImp(stored, `${pod.podid}_${i}`, { ...video.video, ...duration }, video.cacheconfig?.ttl));
    imps.push(...podImps);
    planned.push({ index, pod, impIds: podImps.map((imp) => imp.id), bidders: biddersOf(stored, options.namespace) });
  });

  return { request: openRtbRequest(video, imps, options), pods: planned, rejectedPods };
}

/**
 * One imp of a pod: the stored imp as the base, with its id and, when asked, the cache TTL over it. The request's
 * video object replaces the stored imp's own `video` whole (Prebid Server's createImpressionTemplate): the player
 * that asks is the one described, and a stored field it leaves out (a size, a mime type) does not leak in.
 */
function podImp(stored: Json, id: string, video: Json, cacheTtl: number | undefined): Imp {
  const patch: Json = { id };
  // The bid cache keeps a bid for the smaller of imp.exp and bid.exp: the request's VAST TTL belongs there.
  if (typeof cacheTtl === 'number' && cacheTtl > 0) patch.exp = cacheTtl;
  const imp = mergePatch(structuredClone(stored), patch) as Imp;
  imp.video = structuredClone(video);
  return imp;
}

/** The bidders an imp names, in either place the auction reads them (`imp.ext.<bidder>`, `imp.ext.<ns>.bidder`). */
function biddersOf(imp: Json, namespace: Namespace): Set<string> {
  const names = new Set<string>();
  const ext = isJsonObject(imp.ext) ? imp.ext : {};
  for (const key of Object.keys(ext)) if (!RESERVED_IMP_EXT_KEYS.has(key)) names.add(key.toLowerCase());
  for (const ns of new Set([namespace, 'svc', 'prebid'])) {
    const nested = isJsonObject(ext[ns]) ? (ext[ns] as Json).bidder : undefined;
    if (isJsonObject(nested)) for (const key of Object.keys(nested)) names.add(key.toLowerCase());
  }
  return names;
}

function openRtbRequest(video: VideoRequest, imp: Imp[], options: ExpandOptions): BidRequest {
  const request: BidRequest = { id: randomUUID(), imp };
  for (const field of OPENRTB_PASSTHROUGH) if (video[field] !== undefined) request[field] = structuredClone(video[field]);
  if (typeof request.id !== 'string' || request.id === '') request.id = randomUUID();

  if (video.site) request.site = withContent(video.site, video.content);
  if (video.app) request.app = withContent(video.app, video.content);
  const user = openRtbUser(video.user, options.namespace);
  if (user) request.user = user;
  const regs = openRtbRegs(video.regs, video.user);
  if (regs) request.regs = regs;
  request.ext = auctionOptions(request.ext, options, video);
  // Stored imps and the stored base may spell the service namespace differently from the body.
  unifyNamespaces(request, options.namespace);
  return request;
}

/**
 * `content` of the video request is `site.content` or `app.content`: it replaces whatever content the site or app
 * carried, and without one the content is empty (`{}`), as Prebid Server's mergeData always sets it (its video
 * request holds `content` as a value, never absent). The pods' content is the one the request describes at the top.
 */
function withContent(inventory: Json, content: Json | undefined): Json {
  const copy = structuredClone(inventory);
  copy.content = content ? structuredClone(content) : {};
  return copy;
}

/**
 * The OpenRTB user: `user.buyeruids` (a form the video samples use) joins `user.ext.<ns>.buyeruids`, and
 * `user.gdpr.consentstring` becomes `user.ext.consent` unless that is set; other fields pass unchanged.
 */
function openRtbUser(user: Json | undefined, namespace: Namespace): Json | undefined {
  if (!user) return undefined;
  const { buyeruids, gdpr, ...rest } = structuredClone(user);
  const ext: Json = isJsonObject(rest.ext) ? rest.ext : {};
  if (isJsonObject(buyeruids) && Object.keys(buyeruids).length > 0) {
    const own: Json = isJsonObject(ext[namespace]) ? (ext[namespace] as Json) : {};
    ext[namespace] = { ...own, buyeruids: { ...buyeruids, ...(isJsonObject(own.buyeruids) ? own.buyeruids : {}) } };
  }
  const consent = isJsonObject(gdpr) ? gdpr.consentstring : undefined;
  if (typeof consent === 'string' && consent !== '' && ext.consent === undefined) ext.consent = consent;
  if (Object.keys(ext).length > 0) rest.ext = ext;
  return rest;
}

/** `regs` as sent, plus `regs.ext.gdpr` from `user.gdpr.consentrequired` when the request does not set it. */
function openRtbRegs(regs: Json | undefined, user: Json | undefined): Json | undefined {
  const copy: Json = regs ? structuredClone(regs) : {};
  const consentRequired = isJsonObject(user?.gdpr) ? (user!.gdpr as Json).consentrequired : undefined;
  const ext: Json = isJsonObject(copy.ext) ? copy.ext : {};
  if (typeof consentRequired === 'boolean' && ext.gdpr === undefined) copy.ext = { ...ext, gdpr: consentRequired ? 1 : 0 };
  return Object.keys(copy).length > 0 ? copy : undefined;
}

/**
 * `ext.<ns>`: targeting with bidder keys (every bidder's best bid per imp gets keys), the pods' durations and brand
 * categories (`hb_pb_cat_dur`, deduplicated per pod, `_<bidder>` appended with the request's `appendbiddernames`),
 * the VAST cache, and the request's `supportdeals` (deal tiers replace a deal bid's price bucket in `hb_pb_cat_dur`).
 */
function auctionOptions(ext: unknown, options: ExpandOptions, video: VideoRequest): Json {
  const base: Json = isJsonObject(ext) ? ext : {};
  const own: Json = isJsonObject(base[options.namespace]) ? (base[options.namespace] as Json) : {};
  const targeting: Json = {
    ...(isJsonObject(own.targeting) ? own.targeting : {}),
    includebidderkeys: true,
    includewinners: false,
    // Without categories a pod's bids are still deduplicated, on their whole `<pb>_<dur>s` key (Prebid Server's
    // applyCategoryMapping runs for every video request): one bid per price bucket and duration.
    includebrandcategory: options.brandCategories ? { ...options.brandCategories, withcategory: true } : { withcategory: false },
    durationrangesec: allowedDurations(video.podconfig.durationrangesec),
    requireexactduration: video.podconfig.requireexactduration === true,
  };
  if (video.appendbiddernames === true) targeting.appendbiddernames = true;
  // The granularity the endpoint settled on (the request's, else its stored options'); none is the default one.
  if (options.priceGranularity !== undefined) targeting.pricegranularity = options.priceGranularity;
  else delete targeting.pricegranularity;
  const cache: Json = { ...(isJsonObject(own.cache) ? own.cache : {}), vastxml: {} };
  const deals: Json = video.supportdeals === true ? { supportdeals: true } : {};
  return { ...base, [options.namespace]: { ...own, targeting, cache, ...deals } };
}
