import { Ajv, type ErrorObject } from 'ajv';

/**
 * The body of POST /openrtb2/video (interface specification 2.1 to 2.5) and its validation. Only the fields the
 * endpoint reads are typed; the objects stay open, since device, user, site and app carry OpenRTB fields through.
 */

export interface Pod {
  podid: number;
  adpoddurationsec: number;
  configid: string;
}

export interface PodConfig {
  durationrangesec: number[];
  requireexactduration?: boolean;
  pods: Pod[];
}

export interface IncludeBrandCategory {
  /**
   * 1 = a video-focused ad server (FreeWheel), 2 = a large publisher ad server (Google Ad Manager); required unless
   * `translatecategories` is false (then it is not read).
   */
  primaryadserver?: number;
  publisher?: string;
  /** `false`: bids are keyed by their IAB category as it is, not translated for the ad server. Default true. */
  translatecategories?: boolean;
}

type Json = Record<string, unknown>;

export interface VideoRequest {
  storedrequestid?: string;
  podconfig: PodConfig;
  site?: Json;
  app?: Json;
  video: Json & { mimes: string[]; protocols: number[] };
  includebrandcategory?: IncludeBrandCategory;
  /** `hb_pb_cat_dur` ends in `_<bidder>`, as the auction endpoint's `targeting.appendbiddernames`. */
  appendbiddernames?: boolean;
  /** Deal tiers apply (the auction's `ext.<ns>.supportdeals`): the stored imps' `dealTier` per bidder. */
  supportdeals?: boolean;
  content?: Json;
  user?: Json;
  device?: Json;
  regs?: Json;
  /** A custom granularity, or one of the legacy names (`low`, `med`, `medium`, `high`, `auto`, `dense`). */
  pricegranularity?: Json | string;
  /** Not in the specification's table, but in its samples: `ttl` is how long cached VAST should live. */
  cacheconfig?: { ttl?: number };
  [key: string]: unknown;
}

/** A pod the request named but that cannot be served, with the reasons. */
export interface RejectedPod {
  index: number;
  podid: unknown;
  messages: string[];
}

export type VideoRequestCheck =
  | { kind: 'invalid'; messages: string[] }
  | { kind: 'valid'; request: VideoRequest; usablePods: Pod[]; rejectedPods: RejectedPod[] };

/**
 * Messages for a schema node, by the keyword that failed, where the generic wording would not say how to fix it.
 * A custom schema keyword, declared to ajv below, so strict mode accepts it.
 */
const MESSAGES = 'x-messages';

const publisherWithId = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } };
const integer = { type: 'integer' };
const string = { type: 'string' };

/** The schema `POST /openrtb2/video` validates with; the OpenAPI document describes the endpoint with it. */
export const videoRequestSchema = {
  type: 'object',
  properties: {
    storedrequestid: { type: 'string', minLength: 1 },
    // Filled with {} when absent so that its required fields are named one by one, as clients expect
    // ("request missing required field: PodConfig.DurationRangeSec").
    podconfig: {
      type: 'object',
      default: {},
      required: ['durationrangesec', 'pods'],
      properties: {
        durationrangesec: {
          type: 'array',
          minItems: 1,
          items: { type: 'integer', exclusiveMinimum: 0, [MESSAGES]: { exclusiveMinimum: 'duration array cannot contain negative or zero values' } },
        },
        requireexactduration: { type: 'boolean' },
        // Only the types here: a pod's missing or bad values are checked by checkPod, in Prebid Server's order and words.
        pods: {
          type: 'array',
          minItems: 1,
          items: { type: 'object', properties: { podid: integer, adpoddurationsec: integer, configid: string } },
        },
      },
    },
    site: { type: 'object', required: ['page', 'publisher'], properties: { page: { type: 'string', minLength: 1 }, publisher: publisherWithId } },
    app: {
      type: 'object',
      required: ['domain', 'publisher'],
      properties: { domain: { type: 'string', minLength: 1 }, bundle: string, name: string, storeurl: string, publisher: publisherWithId },
    },
    video: {
      type: 'object',
      required: ['mimes', 'protocols'],
      properties: {
        w: { type: 'integer', minimum: 0 },
        h: { type: 'integer', minimum: 0 },
        // Empty mime strings are dropped after the schema (withoutEmptyMimes), as Prebid Server does.
        mimes: { type: 'array', minItems: 1, items: string },
        // Not limited to the integers of 2.4: later VAST versions (11, 12, ...) pass, as in Prebid Server.
        protocols: { type: 'array', minItems: 1, items: integer },
      },
    },
    includebrandcategory: {
      type: 'object',
      properties: { primaryadserver: integer, publisher: string, translatecategories: { type: 'boolean' } },
      // The ad server is what categories are translated for: without translation it is not read (Prebid Server).
      if: { required: ['translatecategories'], properties: { translatecategories: { const: false } } },
      else: {
        required: ['primaryadserver'],
        properties: { primaryadserver: { enum: [1, 2], [MESSAGES]: { enum: 'request field IncludeBrandCategory.PrimaryAdServer must be 1 (FreeWheel) or 2 (Google Ad Manager)' } } },
      },
    },
    appendbiddernames: { type: 'boolean' },
    supportdeals: { type: 'boolean' },
    content: {
      type: 'object',
      properties: { episode: integer, title: string, season: string, series: string, len: integer, livestream: { enum: [0, 1] } },
    },
    user: {
      type: 'object',
      properties: {
        yob: integer,
        gender: { enum: ['M', 'F', 'O'] },
        keywords: string,
        buyeruids: { type: 'object', additionalProperties: string },
        gdpr: { type: 'object', properties: { consentrequired: { type: 'boolean' }, consentstring: string } },
        ext: { type: 'object', properties: { consent: string } },
      },
    },
    device: {
      type: 'object',
      properties: {
        ua: string, ip: string, os: string, ifa: string, dnt: integer, lmt: integer, devicetype: integer, w: integer, h: integer,
        didsha1: string, didmd5: string, dpidsha1: string, dpidmd5: string, macsha1: string, macmd5: string,
      },
    },
    // Only the types here: the values are checked by prebidGranularityError, in Prebid Server's words; a legacy name
    // is read by parsePriceGranularity, as on the auction endpoint.
    pricegranularity: {
      type: ['object', 'string'],
      properties: {
        precision: integer,
        ranges: { type: 'array', items: { type: 'object', properties: { max: { type: 'number' }, increment: { type: 'number' } } } },
      },
    },
    regs: { type: 'object', properties: { ext: { type: 'object', properties: { gdpr: integer, us_privacy: string } } } },
    cacheconfig: { type: 'object', properties: { ttl: { type: 'integer', minimum: 0 } } },
  },
  required: ['podconfig', 'video'],
  allOf: [
    { anyOf: [{ required: ['site'] }, { required: ['app'] }], [MESSAGES]: { anyOf: 'request missing required field: site or app' } },
    { not: { required: ['site', 'app'] }, [MESSAGES]: { not: 'request.site or request.app must be defined, but not both' } },
  ],
} as const;

// Compiled once: the endpoint validates every request with this one function. `verbose` gives each error its
// schema node (for its x-messages); `useDefaults` fills the absent podconfig; the site/app alternatives name
// properties declared elsewhere, which strictRequired would refuse.
const ajv = new Ajv({ allErrors: true, verbose: true, useDefaults: true, strict: true, strictTypes: false, strictRequired: false });
ajv.addKeyword({ keyword: MESSAGES, schemaType: 'object' });
const validateSchema = ajv.compile(videoRequestSchema);

/**
 * The field names clients know from the request format's documentation, for keys made of several words; any other
 * key is shown capitalised (`mimes` -> `Mimes`).
 */
const DISPLAY_NAMES: Record<string, string> = {
  podconfig: 'PodConfig', durationrangesec: 'DurationRangeSec', requireexactduration: 'RequireExactDuration',
  podid: 'PodId', adpoddurationsec: 'AdPodDurationSec', configid: 'ConfigId', storedrequestid: 'StoredRequestId',
  includebrandcategory: 'IncludeBrandCategory', primaryadserver: 'PrimaryAdServer', pricegranularity: 'PriceGranularity',
  cacheconfig: 'CacheConfig', storeurl: 'StoreUrl', livestream: 'LiveStream', devicetype: 'DeviceType',
  consentrequired: 'ConsentRequired', consentstring: 'ConsentString', buyeruids: 'BuyerUids',
  appendbiddernames: 'AppendBidderNames', translatecategories: 'TranslateCategories', supportdeals: 'SupportDeals',
};

/** `/podconfig/pods/0/configid` -> `PodConfig.Pods.ConfigId`: array positions are left out, the pod index is told apart. */
function fieldName(segments: string[]): string {
  return segments
    .filter((segment) => !/^\d+$/.test(segment))
    .map((segment) => DISPLAY_NAMES[segment] ?? segment.charAt(0).toUpperCase() + segment.slice(1))
    .join('.');
}

function pathSegments(instancePath: string): string[] {
  return instancePath.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function describe(error: ErrorObject): string {
  const custom = (error.parentSchema as Record<string, Record<string, string> | undefined> | undefined)?.[MESSAGES]?.[error.keyword];
  if (custom) return custom;
  const segments = pathSegments(error.instancePath);
  // A site with neither page nor id: Prebid Server's words (it takes an id alone; the specification requires the page).
  if (error.keyword === 'required' && error.instancePath === '/site' && (error.params as { missingProperty: string }).missingProperty === 'page' && !hasSiteId(error.data)) {
    return 'request.site missing required field: id or page';
  }
  switch (error.keyword) {
    case 'required':
      return `request missing required field: ${fieldName([...segments, (error.params as { missingProperty: string }).missingProperty])}`;
    case 'minItems':
    case 'minLength':
      // An empty list or string gives the request nothing more than a missing field would.
      return `request missing required field: ${fieldName(segments)}`;
    case 'type':
      return `request field ${fieldName(segments)} must be ${String((error.params as { type: string | string[] }).type).split(',').map(articleFor).join(' or ')}`;
    case 'enum':
      return `request field ${fieldName(segments)} must be one of ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)}`;
    default:
      return `request field ${fieldName(segments)} ${error.message ?? 'is invalid'}`;
  }
}

function hasSiteId(site: unknown): boolean {
  return isObject(site) && typeof site.id === 'string' && site.id !== '';
}

function articleFor(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** The pod a schema error is about, when it is inside one pod. */
function podIndexOf(error: ErrorObject): number | undefined {
  const match = /^\/podconfig\/pods\/(\d+)(?:\/|$)/.exec(error.instancePath);
  return match ? Number(match[1]) : undefined;
}

/**
 * Errors ajv reports under a failed `anyOf` explain each alternative; the alternative's own message (kept) says it
 * better, so the explanations are dropped. A failed `if` only says which branch failed, and that branch's own error
 * is reported.
 */
function withoutAlternatives(errors: ErrorObject[]): ErrorObject[] {
  const failedAlternatives = errors.filter((error) => error.keyword === 'anyOf').map((error) => `${error.schemaPath}/`);
  return errors.filter((error) => error.keyword !== 'if' && !failedAlternatives.some((prefix) => error.schemaPath.startsWith(prefix)));
}

/**
 * The order Prebid Server checks a video request in (validateVideoRequest), by the field a message is about: the
 * 400 lists its messages in this order, whatever order the schema found them in.
 */
const CHECK_ORDER = ['storedrequestid', 'podconfig/durationrangesec', 'podconfig/pods', 'podconfig', 'site', 'app', 'video/mimes', 'video/protocols', 'video'];

function checkOrderOf(error: ErrorObject): number {
  const segments = pathSegments(error.instancePath).filter((segment) => !/^\d+$/.test(segment));
  if (error.keyword === 'required') segments.push((error.params as { missingProperty: string }).missingProperty);
  // The site-or-app alternatives are about the request as a whole: they are the site/app check.
  const field = segments.length === 0 ? 'site' : segments.join('/');
  const rank = CHECK_ORDER.findIndex((entry) => field === entry || field.startsWith(`${entry}/`));
  return rank === -1 ? CHECK_ORDER.length : rank;
}

/**
 * A pod's own checks, in Prebid Server's order and words: a repeated id, a missing (or non-positive) id, a missing,
 * zero or negative duration, a missing configid. A value of the wrong type was already named by the schema and is
 * not checked again. An absent id counts as 0, as Prebid Server reads it, so it also repeats an earlier absent one.
 */
function checkPod(pod: Json, index: number, seenPodIds: Set<number>): string[] {
  const messages: string[] = [];
  const podid = pod.podid ?? 0;
  if (typeof podid === 'number' && Number.isInteger(podid)) {
    if (seenPodIds.has(podid)) messages.push(`request duplicated required field: PodConfig.Pods.PodId, Pod id: ${podid}`);
    else seenPodIds.add(podid);
    if (podid <= 0) messages.push(`request missing required field: PodConfig.Pods.PodId, Pod index: ${index}`);
  }
  const duration = pod.adpoddurationsec ?? 0;
  if (typeof duration === 'number' && Number.isInteger(duration)) {
    if (duration === 0) messages.push(`request missing or incorrect required field: PodConfig.Pods.AdPodDurationSec, Pod index: ${index}`);
    if (duration < 0) messages.push(`request incorrect required field: PodConfig.Pods.AdPodDurationSec is negative, Pod index: ${index}`);
  }
  if (pod.configid === undefined || pod.configid === '') messages.push(`request missing or incorrect required field: PodConfig.Pods.ConfigId, Pod index: ${index}`);
  return messages;
}

/**
 * `video.mimes` without its empty strings, as Prebid Server sends it on; a list of nothing but empty strings is
 * refused in its words.
 */
function withoutEmptyMimes(video: unknown): string | undefined {
  if (!isObject(video) || !Array.isArray(video.mimes) || video.mimes.length === 0) return undefined;
  const mimes = video.mimes.filter((mime) => mime !== '');
  if (mimes.length === 0) return 'request missing required field: Video.Mimes, mime types contains empty strings only';
  video.mimes = mimes;
  return undefined;
}

/**
 * An app must be identified, by its `id` or its `bundle`, as Prebid Server's validateVideoRequest requires of an app
 * (alone: with a site as well, the request already names that problem).
 */
function unidentifiedAppMessage(body: Json): string | undefined {
  const { app } = body;
  if (!isObject(app) || body.site !== undefined) return undefined;
  const named = (value: unknown) => typeof value === 'string' && value !== '';
  return named(app.id) || named(app.bundle) ? undefined : 'request.app missing required field: id or bundle';
}

/** Prebid Server's most decimals a granularity may ask for (openrtb_ext.MaxDecimalFigures). */
const MAX_DECIMAL_FIGURES = 15;

/**
 * A custom granularity's values, checked as Prebid Server's validatePriceGranularity checks the targeting the video
 * endpoint builds from it, in its words: a precision within 0 to 15, and ranges of increasing `max` (a missing one
 * counts as 0) with positive increments. An absent precision is the default 2, as Prebid Server decodes it.
 */
function prebidGranularityError(granularity: unknown): string | undefined {
  if (!isObject(granularity)) return undefined;
  const { precision } = granularity;
  if (typeof precision === 'number' && precision < 0) return 'Price granularity error: precision must be non-negative';
  if (typeof precision === 'number' && precision > MAX_DECIMAL_FIGURES) {
    return `Price granularity error: precision of more than ${MAX_DECIMAL_FIGURES} significant figures is not supported`;
  }
  let previousMax = 0;
  for (const range of Array.isArray(granularity.ranges) ? granularity.ranges : []) {
    const max = isObject(range) && typeof range.max === 'number' ? range.max : 0;
    const increment = isObject(range) && typeof range.increment === 'number' ? range.increment : 0;
    if (max <= previousMax) return 'Price granularity error: range list must be ordered with increasing "max"';
    if (increment <= 0) return 'Price granularity error: increment must be a nonzero positive number';
    previousMax = max;
  }
  return undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a video request (after its stored request was merged in). Problems of the request as a whole are
 * `invalid` (a 400, its messages in Prebid Server's order); problems of one pod drop that pod, and the request stays
 * valid while at least one pod is usable. Fills `podconfig` with `{}` when absent and drops empty mime strings, so
 * the body must be the caller's own copy.
 */
export function checkVideoRequest(body: Record<string, unknown>): VideoRequestCheck {
  const requestMessages: Array<{ order: number; message: string }> = [];
  const podMessages = new Map<number, string[]>();

  if (!validateSchema(body)) {
    for (const error of withoutAlternatives(validateSchema.errors ?? [])) {
      const podIndex = podIndexOf(error);
      if (podIndex === undefined) requestMessages.push({ order: checkOrderOf(error), message: describe(error) });
      else podMessages.set(podIndex, [...(podMessages.get(podIndex) ?? []), `${describe(error)}, Pod index: ${podIndex}`]);
    }
  }
  const appMessage = unidentifiedAppMessage(body);
  if (appMessage) requestMessages.push({ order: CHECK_ORDER.indexOf('app'), message: appMessage });
  const mimesMessage = withoutEmptyMimes(body.video);
  if (mimesMessage) requestMessages.push({ order: CHECK_ORDER.indexOf('video/mimes'), message: mimesMessage });
  if (requestMessages.length > 0) {
    // A stable sort: messages about one field keep the schema's order.
    return { kind: 'invalid', messages: [...new Set(requestMessages.sort((a, b) => a.order - b.order).map(({ message }) => message))] };
  }
  // Prebid Server checks the granularity on the OpenRTB request it builds, once the video request passed its checks.
  const granularityMessage = prebidGranularityError(body.pricegranularity);
  if (granularityMessage) return { kind: 'invalid', messages: [granularityMessage] };

  const request = body as VideoRequest;
  const seenPodIds = new Set<number>();
  const usablePods: Pod[] = [];
  const rejectedPods: RejectedPod[] = [];
  request.podconfig.pods.forEach((pod, index) => {
    const messages = [...(podMessages.get(index) ?? []), ...(isObject(pod) ? checkPod(pod, index, seenPodIds) : [])];
    if (messages.length > 0) {
      rejectedPods.push({ index, podid: (pod as unknown as Json | null)?.podid, messages: [...new Set(messages)] });
      return;
    }
    usablePods.push(pod);
  });
  return { kind: 'valid', request, usablePods, rejectedPods };
}
