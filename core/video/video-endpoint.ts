import type { BidderError, BidRequest } from '../api/index.js';
import { enterRequest, finish, runAuction, settleContext, storedDataUnavailable, storedFetchDeadline, type EnteredRequest } from '../auction/auction-endpoint.js';
import { invalidRequest, jsonResponse, type EndpointRequest, type EndpointResponse } from '../auction/endpoint-types.js';
import { unifyNamespaces, type Namespace } from '../auction/namespace.js';
import type { EndpointServices } from '../app/endpoints.js';
import { asStoredFetchError, MalformedStoredData, mergePatch, StoredFetchError, type FetchOptions, type StoredDataFetcher } from '../stored/index.js';
import { isJsonObject, parsePriceGranularity } from '../api/index.js';
import { buildAdPods, rejectedAdPod, type AdPod } from './ad-pods.js';
import { AD_SERVER_BY_CODE, type CategoryMappings } from '../auction/category-mappings.js';
import { expandVideoRequest, type BrandCategories } from './openrtb-request.js';
import { checkVideoRequest, type RejectedPod, type VideoRequest } from './video-request.js';
import { videoDebugLog, withDebugLog } from './debug-log.js';

type Json = Record<string, unknown>;

/**
 * POST /openrtb2/video: the entrypoint stage, the stored video request merged under the body, validation, the pods
 * expanded into one OpenRTB request, the shared auction pipeline, then the bids sorted into pods and keyed for the
 * ad server (`hb_pb`, `hb_pb_cat_dur`, `hb_cache_id`), and the exitpoint stage.
 */
export async function handleVideo(input: EndpointRequest, services: EndpointServices): Promise<EndpointResponse> {
  const entered = await enterRequest('video', input, input.body ?? {}, services);
  if ('status' in entered) return entered;
  // `?debug=true` keeps a debug log and turns debug on for this request, whatever its account says (as Prebid Server).
  const debugLog = videoDebugLog(input, entered.context.debugOverride);
  if (debugLog) entered.context.debugOverride = true;
  let answer: EndpointResponse;
  try {
    answer = await answerVideo(input, entered, services);
  } catch (err) {
    if (err instanceof MalformedStoredData) answer = invalidRequest([err.invalidRequestMessage]);
    else if (err instanceof StoredFetchError) answer = storedDataUnavailable(err, entered.context.logger);
    else throw err;
  }
  if (debugLog) {
    const ttl = entered.context.account.cache_ttl?.video ?? DEBUG_LOG_TTL_SECONDS;
    answer = await withDebugLog(answer, debugLog, services.cache.client, ttl, services.clock.now() + DEBUG_LOG_PUT_MS);
  }
  return finish(answer, entered.context, services.pipeline);
}

/** Prebid Server's debug log TTL when the account sets no video cache TTL. */
const DEBUG_LOG_TTL_SECONDS = 3600;
/** Time given to storing the debug log: after the auction, outside its deadline (debug requests only). */
const DEBUG_LOG_PUT_MS = 1000;

async function answerVideo(input: EndpointRequest, entered: EnteredRequest, services: EndpointServices): Promise<EndpointResponse> {
  const { namespace, context } = entered;
  const deadline = storedFetchDeadline(input.receivedAt, entered.request.tmax, services.config.auction);
  const merged = await withStoredVideoRequest(entered.request as Json, namespace, services.stored, { deadline }, services.config.video.requireStoredRequest);
  if ('errors' in merged) return invalidRequest(merged.errors);
  // The stored video request may bring the tmax: the context is settled on the request as merged.
  let refused = settleContext(entered, merged.body as BidRequest, services);
  if (refused instanceof Promise) refused = await refused;
  if (refused) return refused;
  const checked = checkVideoRequest(merged.body);
  if (checked.kind === 'invalid') return invalidRequest(checked.messages);
  const video = checked.request;

  const rules = podRules(video, namespace, services.categories);
  if ('errors' in rules) return invalidRequest(rules.errors);

  const configIds = [...new Set(checked.usablePods.map((pod) => pod.configid))];
  const storedImps = await fetchStored('imps', () => services.stored.fetchImps(configIds, { deadline: context.deadline }));
  const expanded = expandVideoRequest(video, checked.usablePods, {
    namespace,
    storedImps,
    priceGranularity: rules.granularitySource,
    brandCategories: rules.brandCategories,
    maxImps: services.config.video.maxImpsPerRequest,
  });
  const rejectedPods = [...checked.rejectedPods, ...expanded.rejectedPods].sort((a, b) => a.index - b.index);
  if (expanded.pods.length === 0) return invalidRequest([allPodsIncorrect([...checked.rejectedPods, ...expanded.rejectedPods])]);

  // A debug request is a test request for the bidders too (Prebid Server sets `test: 1`).
  if (context.debugOverride) expanded.request.test = 1;
  // The bidders always learn the time they have: without a tmax (or with 0) the request gets the effective one, as
  // Prebid Server's video endpoint always writes its tmax (the host default here, specification reference 8).
  if (expanded.request.tmax === undefined || expanded.request.tmax === 0) expanded.request.tmax = context.tmax;
  withHeaderUserAgent(expanded.request, input.headers['user-agent']);
  const outcome = await runAuction(input, entered, services, expanded.request);
  if (outcome.kind === 'invalid') return invalidRequest(outcome.messages);
  // Prebid Server's video endpoint words an auction that could not run to its end its own way (handleError).
  if (outcome.kind === 'failed') return { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `Critical error while running the video endpoint:  ${outcome.message}` };

  const completed = outcome.kind === 'completed' ? outcome : undefined;
  const report = {
    errors: (completed?.response.ext?.errors ?? {}) as Record<string, BidderError[]>,
    rejected: context.journal.rejectedBids ?? [],
  };
  const served = await buildAdPods(expanded.pods, completed?.seats ?? [], report, completed?.request ?? expanded.request, {
    targeting: services.targeting,
    cache: services.bidCache,
    context,
  });
  const answered = expanded.pods.map((planned, i): [number, AdPod] => [planned.index, served[i]!]);
  const dropped = rejectedPods.map((pod): [number, AdPod] => [pod.index, rejectedAdPod(pod.podid, pod.messages)]);
  // One entry per requested pod, in the request's order: the served ones and the dropped ones with their reasons.
  const adPods = [...answered, ...dropped].sort(([a], [b]) => a - b).map(([, adPod]) => adPod);
  // In debug, the auction's `ext` (debug output, errors, response times) comes along, as in Prebid Server.
  return jsonResponse(200, context.debug && completed ? { adPods, ext: completed.response.ext } : { adPods });
}

/**
 * The one message for a request none of whose pods can be served, as Prebid Server words it: each pod's messages
 * joined with `, `, the pods with `; `, those that failed their own checks first, then those that could not be
 * expanded (their stored imp missing), each in request order.
 */
function allPodsIncorrect(pods: RejectedPod[]): string {
  return `all pods are incorrect: ${pods.map((pod) => pod.messages.join(', ')).join('; ')}`;
}

/**
 * `storedrequestid` names a stored video request (the whole request can live in stored configuration, spec 2.1):
 * it is the base and the body is applied over it as a JSON merge patch, before anything is checked. A host that
 * requires one refuses a body without a string id at once, with Prebid Server's words and nothing else checked.
 */
async function withStoredVideoRequest(body: Json, namespace: Namespace, stored: StoredDataFetcher, options: FetchOptions, required: boolean): Promise<{ body: Json } | { errors: string[] }> {
  const id = body.storedrequestid;
  if (required && typeof id !== 'string') return { errors: ['Unable to find required stored request id'] };
  if (id === undefined) return { body };
  if (typeof id !== 'string' || id === '') return { errors: ['request field StoredRequestId must be a non-empty string'] };
  const document = (await fetchStored('request', () => stored.fetchRequests([id], options))).get(id);
  if (document === undefined) return { errors: [`stored request with id "${id}" (storedrequestid) not found`] };
  if (!isJsonObject(document)) return { errors: [`stored request with id "${id}" (storedrequestid) is not a JSON object`] };
  const merged = mergePatch(structuredClone(document), body) as Json;
  // The stored document may spell the service namespace differently from the body.
  unifyNamespaces(merged as BidRequest, namespace);
  return { body: merged };
}

/** Any failure of the stored-data backend becomes a StoredFetchError, which the endpoint answers with a 503. */
async function fetchStored(what: string, fetch: () => Promise<Map<string, unknown>>): Promise<Map<string, unknown>> {
  try {
    return await fetch();
  } catch (err) {
    throw asStoredFetchError(err, `cannot fetch stored ${what}`);
  }
}

/**
 * The price granularity and brand categories the auction keys the pods by (the targeting service fits durations,
 * translates categories and deduplicates them, as on the auction endpoint), or the 400 messages when the request asks
 * for what cannot be done.
 */
function podRules(video: VideoRequest, namespace: Namespace, categories: CategoryMappings): { granularitySource: unknown; brandCategories?: BrandCategories } | { errors: string[] } {
  const errors: string[] = [];
  // A legacy name ("high") is read as on the auction endpoint.
  const granularitySource = withDefaultRanges(video.pricegranularity ?? targetingOptionsOf(video, namespace).pricegranularity);
  const parsed = parsePriceGranularity(granularitySource);
  if ('error' in parsed) errors.push(`request field PriceGranularity: ${parsed.error}`);

  const brandCategory = video.includebrandcategory;
  let brandCategories: BrandCategories | undefined;
  if (brandCategory?.translatecategories === false) {
    // Untranslated IAB categories need no mapping, and the ad server is not read (Prebid Server's category mapping).
    brandCategories = { primaryadserver: brandCategory.primaryadserver ?? 0, publisher: brandCategory.publisher ?? '', translatecategories: false };
  } else if (brandCategory?.primaryadserver !== undefined) {
    const adServer = AD_SERVER_BY_CODE[brandCategory.primaryadserver]!;
    if (categories.mappingFor(adServer, brandCategory.publisher || undefined)) brandCategories = { primaryadserver: brandCategory.primaryadserver, publisher: brandCategory.publisher ?? '' };
    else {
      errors.push(
        `request field IncludeBrandCategory.PrimaryAdServer: this host has no category mapping for ad server ${brandCategory.primaryadserver} (${adServer}); ` +
          `leave out includebrandcategory, or configure video.categoryMappings.${adServer}`,
      );
    }
  }
  if (errors.length > 0) return { errors };
  return { granularitySource, brandCategories };
}

/**
 * A custom granularity without ranges (absent or empty) is the default one, whatever precision it names, as Prebid
 * Server's SetDefaults puts it in place: the ranges are optional (specification 2.1).
 */
function withDefaultRanges(granularity: unknown): unknown {
  if (!isJsonObject(granularity)) return granularity;
  return Array.isArray(granularity.ranges) && granularity.ranges.length > 0 ? granularity : undefined;
}

/** `ext.<ns>.targeting` of a (stored) video request that carries OpenRTB options. */
function targetingOptionsOf(video: VideoRequest, namespace: Namespace): Json {
  const own = isJsonObject(video.ext) ? video.ext[namespace] : undefined;
  return isJsonObject(own) && isJsonObject(own.targeting) ? own.targeting : {};
}

/**
 * Without `device.ua` in the body, the bidders get the User-Agent header; one holding a `%` is URL-decoded first (a
 * query unescape: `+` is a space), as Prebid Server's video endpoint reads it, since SSAI servers pass their viewers'
 * user agents on encoded. One that does not decode is used as it came. The auction fills other device facts later.
 */
function withHeaderUserAgent(request: BidRequest, header: string | undefined): void {
  if (!header) return;
  const device = isJsonObject(request.device) ? request.device : undefined;
  if (typeof device?.ua === 'string' && device.ua !== '') return;
  request.device = { ...(device ?? {}), ua: header.includes('%') ? queryUnescape(header) ?? header : header };
}

/** Go's url.QueryUnescape: `%XX` bytes (read as UTF-8) and `+` as a space; undefined when an escape is malformed. */
function queryUnescape(text: string): string | undefined {
  if (/%(?![0-9a-fA-F]{2})/.test(text)) return undefined;
  return text.replaceAll('+', ' ').replace(/(?:%[0-9a-fA-F]{2})+/g, (escaped) => Buffer.from(escaped.replaceAll('%', ''), 'hex').toString('utf8'));
}
