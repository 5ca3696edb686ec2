import type { BidderError, BidRequest } from '../api/index.js';
import { finish, prepareRequest, runPrepared, type PreparedRequest } from '../auction/auction-endpoint.js';
import { invalidRequest, jsonResponse, type EndpointRequest, type EndpointResponse } from '../auction/endpoint-types.js';
import { unifyNamespaces, type Namespace } from '../auction/namespace.js';
import { effectiveTmax } from '../auction/pipeline.js';
import type { EndpointServices } from '../app/endpoints.js';
import { asStoredFetchError, isJsonObject, mergePatch, StoredFetchError, type StoredDataFetcher } from '../stored/index.js';
import { parsePriceGranularity } from '../api/index.js';
import { buildAdPods, rejectedAdPod, type AdPod, type PodRules } from './ad-pods.js';
import { AD_SERVER_BY_CODE, type CategoryMappings } from './category-mappings.js';
import { allowedDurations } from './durations.js';
import { expandVideoRequest } from './openrtb-request.js';
import { checkVideoRequest, type VideoRequest } from './video-request.js';

type Json = Record<string, unknown>;

export type VideoServices = Pick<EndpointServices, 'pipeline' | 'stored' | 'config' | 'cache' | 'logger'> & { categories: CategoryMappings };

/**
 * POST /openrtb2/video: the entrypoint stage, the stored video request merged under the body, validation, the pods
 * expanded into one OpenRTB request, the shared auction pipeline, then the bids sorted into pods and keyed for the
 * ad server (`hb_pb`, `hb_pb_cat_dur`, `hb_cache_id`), and the exitpoint stage.
 */
export async function handleVideo(input: EndpointRequest, services: VideoServices): Promise<EndpointResponse> {
  const prepared = await prepareRequest('video', input, input.body ?? {}, services);
  if ('status' in prepared) return prepared;
  let answer: EndpointResponse;
  try {
    answer = await answerVideo(input, prepared, services);
  } catch (err) {
    if (!(err instanceof StoredFetchError)) throw err;
    // The stored-data backend failed, not the client: a 503 the caller may retry, as on the auction endpoint.
    services.logger.error({ err }, 'stored data backend failed');
    answer = { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Stored data is unavailable; try again.\n' };
  }
  return finish('video', answer, prepared.state, services.pipeline);
}

async function answerVideo(input: EndpointRequest, prepared: PreparedRequest, services: VideoServices): Promise<EndpointResponse> {
  const { namespace } = prepared;
  const merged = await withStoredVideoRequest(prepared.request as Json, namespace, services.stored);
  if ('errors' in merged) return invalidRequest(merged.errors);
  const checked = checkVideoRequest(merged.body, { requireStoredRequest: services.config.video.requireStoredRequest });
  if (checked.kind === 'invalid') return invalidRequest(checked.messages);
  const video = checked.request;

  const rules = podRules(video, namespace, services.categories);
  if ('errors' in rules) return invalidRequest(rules.errors);

  const configIds = [...new Set(checked.usablePods.map((pod) => pod.configid))];
  const storedImps = await fetchStored('imps', () => services.stored.fetchImps(configIds));
  const expanded = expandVideoRequest(video, checked.usablePods, {
    namespace,
    storedImps,
    priceGranularity: rules.granularitySource,
    maxImps: services.config.video.maxImpsPerRequest,
  });
  const rejectedPods = [...checked.rejectedPods, ...expanded.rejectedPods].sort((a, b) => a.index - b.index);
  if (expanded.pods.length === 0) return invalidRequest(rejectedPods.flatMap((pod) => pod.messages));

  const outcome = await runPrepared('video', input, prepared, services.pipeline, expanded.request);
  if (outcome.kind === 'invalid') return invalidRequest(outcome.messages);

  const completed = outcome.kind === 'completed' ? outcome : undefined;
  const auctionErrors = (completed?.response.ext?.errors ?? {}) as Record<string, BidderError[]>;
  const deadline = input.receivedAt + effectiveTmax(expanded.request, services.config);
  const served = await buildAdPods(expanded.pods, completed?.seats ?? [], auctionErrors, completed?.request ?? expanded.request, rules.pod, {
    client: services.cache.client,
    deadline,
  });
  const answered = expanded.pods.map((planned, i): [number, AdPod] => [planned.index, served[i]!]);
  const dropped = rejectedPods.map((pod): [number, AdPod] => [pod.index, rejectedAdPod(pod.podid, pod.messages)]);
  // One entry per requested pod, in the request's order: the served ones and the dropped ones with their reasons.
  const adPods = [...answered, ...dropped].sort(([a], [b]) => a - b).map(([, adPod]) => adPod);
  return jsonResponse(200, { adPods });
}

/**
 * `storedrequestid` names a stored video request (the whole request can live in stored configuration, spec 2.1):
 * it is the base and the body is applied over it as a JSON merge patch, before anything is checked.
 */
async function withStoredVideoRequest(body: Json, namespace: Namespace, stored: StoredDataFetcher): Promise<{ body: Json } | { errors: string[] }> {
  const id = body.storedrequestid;
  if (id === undefined) return { body };
  if (typeof id !== 'string' || id === '') return { errors: ['request field StoredRequestId must be a non-empty string'] };
  const document = (await fetchStored('request', () => stored.fetchRequests([id]))).get(id);
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

/** The rules bids are sorted into pods by, or the 400 messages when the request asks for what cannot be done. */
function podRules(video: VideoRequest, namespace: Namespace, categories: CategoryMappings): { pod: PodRules; granularitySource: unknown } | { errors: string[] } {
  const errors: string[] = [];
  const granularitySource = video.pricegranularity ?? targetingOptionsOf(video, namespace).pricegranularity;
  const parsed = parsePriceGranularity(granularitySource);
  if ('error' in parsed) errors.push(`request field PriceGranularity: ${parsed.error}`);

  let translation: PodRules['categories'];
  const brandCategory = video.includebrandcategory;
  if (brandCategory) {
    const adServer = AD_SERVER_BY_CODE[brandCategory.primaryadserver]!;
    const mapping = categories.mappingFor(adServer, brandCategory.publisher || undefined);
    if (mapping) translation = { adServer, mapping };
    else {
      errors.push(
        `request field IncludeBrandCategory.PrimaryAdServer: this host has no category mapping for ad server ${brandCategory.primaryadserver} (${adServer}); ` +
          `leave out includebrandcategory, or configure video.categoryMappings.${adServer}`,
      );
    }
  }
  if (errors.length > 0 || 'error' in parsed) return { errors };
  const requireExact = video.podconfig.requireexactduration === true;
  return {
    pod: { allowed: allowedDurations(video.podconfig.durationrangesec), requireExact, categories: translation, granularity: parsed.granularity, namespace },
    granularitySource,
  };
}

/** `ext.<ns>.targeting` of a (stored) video request that carries OpenRTB options. */
function targetingOptionsOf(video: VideoRequest, namespace: Namespace): Json {
  const own = isJsonObject(video.ext) ? video.ext[namespace] : undefined;
  return isJsonObject(own) && isJsonObject(own.targeting) ? own.targeting : {};
}
