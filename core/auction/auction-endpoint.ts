import type { BidRequest, EndpointName, PluginLogger } from '../api/index.js';
import type { StoredDataFetcher } from '../stored/index.js';
import { namesStoredData, resolveStoredRequest, type StoredResolution } from '../stored/index.js';
import { parseUidsCookie } from './buyer-ids.js';
import { invalidRequest, jsonResponse, type EndpointRequest, type EndpointResponse } from './endpoint-types.js';
import { detectNamespace, unifyNamespaces, type Namespace } from './namespace.js';
import { effectiveTmax, traceLevelOf, type AuctionOutcome, type AuctionPipeline } from './pipeline.js';
import type { HookRequestState } from '../hooks/executor.js';
import type { GavelConfig } from '../config/index.js';

/** The request after the entrypoint stage and stored-data resolution, ready for the pipeline. */
export interface PreparedRequest {
  request: BidRequest;
  namespace: Namespace;
  state: HookRequestState;
}

/**
 * Shared front half of every endpoint: the entrypoint stage, the namespace, stored-request merging. Returns either
 * a prepared request or the HTTP answer that ends the exchange early (400, or a 200 no-bid on a reject).
 */
export async function prepareRequest(
  endpoint: EndpointName,
  input: EndpointRequest,
  body: Record<string, unknown>,
  services: { pipeline: AuctionPipeline; stored: StoredDataFetcher; config: GavelConfig; logger: PluginLogger },
): Promise<PreparedRequest | EndpointResponse> {
  const namespace = detectNamespace(body as BidRequest, services.config.auction.defaultNamespace);
  const tmax = effectiveTmax(body as BidRequest, services.config);
  const state = services.pipeline.newHookState(endpoint, namespace, input.receivedAt, tmax, input.secure, traceLevelOf(body as BidRequest, namespace));
  let enteredBody: unknown = body;
  if (services.pipeline.hooked(endpoint, 'entrypoint')) {
    let entry = services.pipeline.stage(endpoint, 'entrypoint', { method: input.method, path: input.path, headers: input.headers, query: input.query, body }, state);
    if (entry instanceof Promise) entry = await entry;
    if (entry.invalid) return invalidRequest(entry.invalid);
    if (entry.rejection) return jsonResponse(200, { id: String(body.id ?? ''), nbr: entry.rejection.nbr ?? 0 });
    enteredBody = entry.payload.body;
    if (typeof enteredBody !== 'object' || enteredBody === null || Array.isArray(enteredBody)) return invalidRequest(['request body must be a JSON object']);
  }

  unifyNamespaces(enteredBody as BidRequest, namespace);
  const entered = enteredBody as Record<string, unknown>;
  // Most requests name no stored data: they skip the resolution and its promises altogether.
  let resolved: StoredResolution = { request: entered };
  try {
    if (namesStoredData(entered, namespace)) resolved = await resolveStoredRequest(entered, namespace, services.stored);
  } catch (err) {
    // The backend failed, not the client: a 503 the caller may retry, never a 400.
    services.logger.error({ err }, 'stored data backend failed');
    return { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Stored data is unavailable; try again.\n' };
  }
  if ('errors' in resolved) return invalidRequest(resolved.errors);
  const request = resolved.request as BidRequest;
  if (request !== entered) unifyNamespaces(request, namespace);
  return { request, namespace, state };
}

/** Maps a pipeline outcome to the auction endpoint's HTTP answer. */
export function auctionAnswer(outcome: AuctionOutcome): EndpointResponse {
  if (outcome.kind === 'invalid') return invalidRequest(outcome.messages);
  return jsonResponse(200, outcome.response);
}

/** Runs the pipeline on a prepared request (or on one the endpoint built from it), with the exchange's facts. */
export function runPrepared(
  endpoint: EndpointName,
  input: EndpointRequest,
  prepared: PreparedRequest,
  pipeline: AuctionPipeline,
  request: BidRequest = prepared.request,
): Promise<AuctionOutcome> {
  return pipeline.run({
    endpoint,
    request,
    namespace: prepared.namespace,
    receivedAt: input.receivedAt,
    secure: input.secure,
    cookieUids: parseUidsCookie(input.uidsCookie, Date.now()),
    hookState: prepared.state,
  });
}

/** POST /openrtb2/auction. */
export async function handleAuction(
  input: EndpointRequest,
  services: { pipeline: AuctionPipeline; stored: StoredDataFetcher; config: GavelConfig; logger: PluginLogger },
): Promise<EndpointResponse> {
  const prepared = await prepareRequest('auction', input, input.body ?? {}, services);
  if ('status' in prepared) return prepared;
  const outcome = await runPrepared('auction', input, prepared, services.pipeline);
  return finish('auction', auctionAnswer(outcome), prepared.state, services.pipeline);
}

/** Runs the exitpoint stage over the answer about to be written. */
export function finish(endpoint: EndpointName, answer: EndpointResponse, state: HookRequestState, pipeline: AuctionPipeline): EndpointResponse | Promise<EndpointResponse> {
  return pipeline.hooked(endpoint, 'exitpoint') ? runExitpoint(endpoint, answer, state, pipeline) : answer;
}

async function runExitpoint(endpoint: EndpointName, answer: EndpointResponse, state: HookRequestState, pipeline: AuctionPipeline): Promise<EndpointResponse> {
  let exit = pipeline.stage(endpoint, 'exitpoint', { status: answer.status, headers: answer.headers, body: answer.body }, state);
  if (exit instanceof Promise) exit = await exit;
  return { status: exit.payload.status, headers: exit.payload.headers, body: exit.payload.body };
}
