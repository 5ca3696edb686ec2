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
  /** 1 = a video-focused ad server (FreeWheel), 2 = a large publisher ad server (Google Ad Manager). */
  primaryadserver: 1 | 2;
  publisher?: string;
}

type Json = Record<string, unknown>;

export interface VideoRequest {
  storedrequestid?: string;
  podconfig: PodConfig;
  site?: Json;
  app?: Json;
  video: Json & { mimes: string[]; protocols: number[] };
  includebrandcategory?: IncludeBrandCategory;
  content?: Json;
  user?: Json;
  device?: Json;
  regs?: Json;
  pricegranularity?: Json;
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

/** The protocol integers of specification 2.4 (VAST 1.0 to DAAST 1.0 Wrapper). */
const VIDEO_PROTOCOLS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

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
        pods: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['podid', 'adpoddurationsec', 'configid'],
            properties: {
              podid: { type: 'integer', minimum: 1, [MESSAGES]: { minimum: 'request incorrect required field: PodConfig.Pods.PodId must be a positive integer' } },
              adpoddurationsec: {
                type: 'integer',
                exclusiveMinimum: 0,
                [MESSAGES]: { exclusiveMinimum: 'request incorrect required field: PodConfig.Pods.AdPodDurationSec must be a positive number of seconds' },
              },
              configid: { type: 'string', minLength: 1 },
            },
          },
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
        mimes: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1, [MESSAGES]: { minLength: 'request field Video.Mimes must not contain empty strings' } } },
        protocols: {
          type: 'array',
          minItems: 1,
          items: { enum: VIDEO_PROTOCOLS, [MESSAGES]: { enum: `request field Video.Protocols may only contain the protocol integers ${VIDEO_PROTOCOLS[0]} to ${VIDEO_PROTOCOLS.at(-1)} (VAST 1.0 to DAAST 1.0 Wrapper)` } },
        },
      },
    },
    includebrandcategory: {
      type: 'object',
      required: ['primaryadserver'],
      properties: {
        primaryadserver: { enum: [1, 2], [MESSAGES]: { enum: 'request field IncludeBrandCategory.PrimaryAdServer must be 1 (FreeWheel) or 2 (Google Ad Manager)' } },
        publisher: string,
      },
    },
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
    pricegranularity: {
      type: 'object',
      properties: {
        precision: { type: 'integer', minimum: 0 },
        ranges: {
          type: 'array',
          items: { type: 'object', required: ['max', 'increment'], properties: { max: { type: 'number' }, increment: { type: 'number', exclusiveMinimum: 0 } } },
        },
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
  switch (error.keyword) {
    case 'required':
      return `request missing required field: ${fieldName([...segments, (error.params as { missingProperty: string }).missingProperty])}`;
    case 'minItems':
    case 'minLength':
      // An empty list or string gives the request nothing more than a missing field would.
      return `request missing required field: ${fieldName(segments)}`;
    case 'type':
      return `request field ${fieldName(segments)} must be ${articleFor((error.params as { type: string }).type)}`;
    case 'enum':
      return `request field ${fieldName(segments)} must be one of ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)}`;
    default:
      return `request field ${fieldName(segments)} ${error.message ?? 'is invalid'}`;
  }
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
 * better, so the explanations are dropped.
 */
function withoutAlternatives(errors: ErrorObject[]): ErrorObject[] {
  const failedAlternatives = errors.filter((error) => error.keyword === 'anyOf').map((error) => `${error.schemaPath}/`);
  return errors.filter((error) => !failedAlternatives.some((prefix) => error.schemaPath.startsWith(prefix)));
}

/**
 * Checks a video request (after its stored request was merged in). Problems of the request as a whole are
 * `invalid` (a 400); problems of one pod drop that pod, and the request stays valid while at least one pod is usable.
 * Fills `podconfig` with `{}` when absent, so the body must be the caller's own copy.
 */
export function checkVideoRequest(body: Record<string, unknown>, options: { requireStoredRequest?: boolean } = {}): VideoRequestCheck {
  const requestMessages: string[] = [];
  const podMessages = new Map<number, string[]>();
  if (options.requireStoredRequest && body.storedrequestid === undefined) requestMessages.push('request missing required field: storedrequestid');

  if (!validateSchema(body)) {
    for (const error of withoutAlternatives(validateSchema.errors ?? [])) {
      const podIndex = podIndexOf(error);
      if (podIndex === undefined) requestMessages.push(describe(error));
      else podMessages.set(podIndex, [...(podMessages.get(podIndex) ?? []), `${describe(error)}, Pod index: ${podIndex}`]);
    }
  }
  if (requestMessages.length > 0) return { kind: 'invalid', messages: [...new Set(requestMessages)] };

  const request = body as VideoRequest;
  const seenPodIds = new Set<number>();
  const usablePods: Pod[] = [];
  const rejectedPods: RejectedPod[] = [];
  request.podconfig.pods.forEach((pod, index) => {
    const messages = podMessages.get(index) ?? [];
    if (messages.length === 0 && seenPodIds.has(pod.podid)) {
      messages.push(`request duplicated required field: PodConfig.Pods.PodId, Pod id: ${pod.podid}, Pod index: ${index}`);
    }
    if (messages.length > 0) {
      rejectedPods.push({ index, podid: (pod as unknown as Json | null)?.podid, messages: [...new Set(messages)] });
      return;
    }
    seenPodIds.add(pod.podid);
    usablePods.push(pod);
  });
  return { kind: 'valid', request, usablePods, rejectedPods };
}
