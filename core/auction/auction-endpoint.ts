import type { BidRequest, EndpointName, PluginLogger, StagePayloads } from '../api/index.js';
import { accountIdOf, applyAccountDefaults, decodedAccountIdOf, blockedAppRefusal, type AccountLoader, type AccountOutcome, type AccountRefusal } from '../accounts/index.js';
import type { Clock } from '../app/tokens.js';
import type { GavelConfig } from '../config/index.js';
import { isCrossOriginCredentialed, RequestContext, resolveAuctionContext, traceLevelOf } from '../context/request-context.js';
import type { StageOutcome } from '../hooks/executor.js';
import type { ExecutionPlanner } from '../hooks/plan.js';
import type { AuctionWatchers } from '../inspector/watch.js';
import { impIdError, namesStoredData, resolveStoredRequest, StoredFetchError, type StoredDataFetcher, type StoredResolution } from '../stored/index.js';
import type { StoredResponseReader, StoredResponsesOutcome } from '../stored-responses/index.js';
import { parseUidsCookie } from './buyer-ids.js';
import type { ImplicitFields } from './implicit-fields.js';
import { headerValue, OBSERVE_BROWSING_TOPICS, OBSERVE_BROWSING_TOPICS_VALUE, SEC_BROWSING_TOPICS } from './privacy-sandbox.js';
import type { AccessNote } from '../http/request-log.js';
import { criticalAuctionError, invalidRequest, jsonResponse, type EndpointRequest, type EndpointResponse } from './endpoint-types.js';
import { detectNamespace, unifyNamespaces, type Namespace } from './namespace.js';
import type { AuctionOutcome, AuctionPipeline } from './pipeline.js';

/** What the endpoints that run an auction share; built once at boot. */
export interface AuctionEndpointServices {
  pipeline: AuctionPipeline;
  planner: ExecutionPlanner;
  stored: StoredDataFetcher;
  accounts: AccountLoader;
  /** Reads the stored auction and bid responses a request names (replaceable: the exchange runner has none). */
  storedResponses: StoredResponseReader;
  /** Fills what the body leaves out from the HTTP request and defaults (replaceable: the exchange runner has none). */
  implicitFields: ImplicitFields;
  /** `auction.blockedApps`, as a set. */
  blockedApps: ReadonlySet<string>;
  config: GavelConfig;
  logger: PluginLogger;
  clock: Clock;
  /** Who watches an auction in detail (debug log, inspector); absent in tests that need neither. */
  watchers?: AuctionWatchers;
}

/** A request after the entrypoint stage and stored-data merging, with its context still to be resolved. */
export interface EnteredRequest {
  request: BidRequest;
  namespace: Namespace;
  context: RequestContext;
  /** The stored request the body named, as fetched (read only): Prebid Server reads the account id there first. */
  storedRequest?: Record<string, unknown>;
  /** What is wrong with the imps' ids (`impIdError`): Prebid Server's 400 once the account is loaded. */
  impIdProblem?: string;
}

/** Prebid Server's header for the host's debug override. */
const DEBUG_OVERRIDE_HEADER = 'x-pbs-debug-override';

/** The request carries the host's debug override token (never true when the host set none). */
function isDebugOverride(input: EndpointRequest, token: string | undefined): boolean {
  if (token === undefined) return false;
  const sent = input.headers[DEBUG_OVERRIDE_HEADER];
  return (Array.isArray(sent) ? sent[0] : sent) === token;
}

/**
 * The stored-data backend failed or was too slow, not the client: a 503 the caller may retry, never a 400. It names
 * what was unavailable (the kind and ids, and whether the backend failed or missed the deadline), never the backend's
 * own message. Logged with the error, on the request's logger.
 */
export function storedDataUnavailable(err: unknown, logger: PluginLogger): EndpointResponse {
  const what = err instanceof StoredFetchError ? err.unavailable : 'stored data: the backend failed';
  logger.error({ err, code: err instanceof StoredFetchError ? err.code : undefined }, 'stored data backend failed');
  return { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `Stored data is unavailable (${what}); try again.\n` };
}

/**
 * The deadline stored-data fetches must meet, before the request's own is known (the stored request may bring a
 * tmax): the tmax the request asks for, else the host default, capped by the host maximum, from its arrival.
 */
export function storedFetchDeadline(receivedAt: number, tmax: unknown, auction: GavelConfig['auction']): number {
  const asked = typeof tmax === 'number' && tmax > 0 ? tmax : auction.defaultTmaxMs;
  // A tmax of a few ms (or 1e-58) is the client's to choose, but it must not make a healthy backend look down (a 503):
  // the fetch always gets Prebid Server's default stored-request timeout.
  return receivedAt + Math.min(Math.max(asked, MIN_STORED_FETCH_MS), auction.maxTmaxMs);
}

/** The least time a stored-data fetch is given, whatever the request's tmax (Prebid Server's `stored_requests_timeout_ms` default). */
export const MIN_STORED_FETCH_MS = 50;

/**
 * Shared front half of every endpoint that runs an auction: the request context begins, the entrypoint stage runs,
 * the namespace is read and stored data merged. Returns the merged request, or the HTTP answer that ends the exchange
 * early (400, 503, or a 200 no-bid when a hook rejected it).
 */
export function enterRequest(
  endpoint: EndpointName,
  input: EndpointRequest,
  body: Record<string, unknown>,
  services: AuctionEndpointServices,
): Entered | Promise<Entered> {
  const logger = input.logger ?? services.logger;
  const context = new RequestContext(endpoint, input.receivedAt, input.secure, logger, services.clock, services.planner, input.requestId);
  context.debugOverride = isDebugOverride(input, services.config.debug.overrideToken);
  context.crossOriginCredentialed = isCrossOriginCredentialed(input.headers);
  context.observer = services.watchers?.begin(context, input);
  const namespace = detectNamespace(body as BidRequest, services.config.auction.defaultNamespace);
  context.traceAt(traceLevelOf(body, namespace));
  if (!services.pipeline.hooked(context, 'entrypoint')) return mergeStoredData(body, namespace, context, input, services);
  const entry = services.pipeline.stage('entrypoint', { method: input.method, path: input.path, headers: input.headers, query: input.query, body }, context);
  const afterEntrypoint = (settled: StageOutcome<StagePayloads['entrypoint']>): Entered | Promise<Entered> => {
    if (settled.rejection) return jsonResponse(200, { id: String(body.id ?? ''), nbr: settled.rejection.nbr ?? 0 });
    const enteredBody = settled.payload.body;
    if (typeof enteredBody !== 'object' || enteredBody === null || Array.isArray(enteredBody)) return invalidRequest(['request body must be a JSON object']);
    return mergeStoredData(enteredBody as Record<string, unknown>, namespace, context, input, services);
  };
  return entry instanceof Promise ? entry.then(afterEntrypoint) : afterEntrypoint(entry);
}

/** A request entered, or the answer that ends it early. */
export type Entered = EnteredRequest | EndpointResponse;

/**
 * The body with the stored data it names merged in; most requests name none and skip the resolution and its promises.
 * An AMP request is a stored request already: what it names in turn is not merged, as in Prebid Server.
 */
function mergeStoredData(entered: Record<string, unknown>, namespace: Namespace, context: RequestContext, input: EndpointRequest, services: AuctionEndpointServices): Entered | Promise<Entered> {
  unifyNamespaces(entered as BidRequest, namespace);
  if (context.endpoint === 'amp') return { request: entered as BidRequest, namespace, context };
  const resolved = (resolution: StoredResolution): Entered => {
    if ('errors' in resolution) return invalidRequest(resolution.errors);
    const request = resolution.request as BidRequest;
    if (request !== entered) unifyNamespaces(request, namespace);
    if (resolution.echoedVideo) context.journal.echoedVideo = resolution.echoedVideo;
    const entry: EnteredRequest = { request, namespace, context };
    if (resolution.storedRequest) entry.storedRequest = resolution.storedRequest;
    if (resolution.impIdProblem !== undefined) entry.impIdProblem = resolution.impIdProblem;
    return entry;
  };
  try {
    if (!namesStoredData(entered, namespace)) {
      const impIdProblem = context.endpoint === 'auction' && Array.isArray(entered.imp) ? impIdError(entered.imp) : undefined;
      return impIdProblem === undefined ? { request: entered as BidRequest, namespace, context } : { request: entered as BidRequest, namespace, context, impIdProblem };
    }
    const deadline = storedFetchDeadline(input.receivedAt, entered.tmax, services.config.auction);
    return resolveStoredRequest(entered, namespace, services.stored, { deadline }, { generateRequestId: services.config.auction.generateRequestId }).then(resolved, (err: unknown) => storedDataUnavailable(err, context.logger));
  } catch (err) {
    return storedDataUnavailable(err, context.logger);
  }
}

/** A request refused for its account or app: Prebid Server's status, the message as a 400 line is written. */
export function refusalAnswer(refusal: AccountRefusal): EndpointResponse {
  return { status: refusal.status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `Invalid request: ${refusal.message}\n` };
}

/**
 * Resolves the request context from the request in its final merged form: once per request, before its auction.
 * The account is loaded here (its defaults written into the request) and the stored responses the request names are
 * read; a request its account or app refuses ends with the answer returned. Synchronous (no promise) when the account
 * is cached and no stored response is named, as for most requests.
 */
export function settleContext(entered: EnteredRequest, request: BidRequest, services: AuctionEndpointServices): Settled {
  const blocked = blockedAppRefusal(request, services.blockedApps);
  if (blocked) return refusalAnswer(blocked);
  const named = accountIdOfRequest(entered, request);
  if ('error' in named) return invalidRequest([named.error]);
  const loaded = services.accounts.load(named.id, { deadline: storedFetchDeadline(entered.context.receivedAt, request.tmax, services.config.auction) });
  return loaded instanceof Promise ? loaded.then((outcome) => settleUnder(outcome, entered, request, services)) : settleUnder(loaded, entered, request, services);
}

/**
 * The account a request names, as Prebid Server's getAccountIdFromRawRequest finds it: in the stored request the body
 * named first (an id of the wrong type there is the error), else in the request.
 */
function accountIdOfRequest(entered: EnteredRequest, request: BidRequest): ReturnType<typeof accountIdOf> {
  const endpoint = entered.context.endpoint;
  // AMP and video read it from the request once decoded (Prebid Server's getAccountID).
  if (endpoint === 'amp' || endpoint === 'video') return decodedAccountIdOf(request, entered.namespace, endpoint);
  if (entered.storedRequest) {
    const stored = accountIdOf(entered.storedRequest as BidRequest, entered.namespace);
    if ('error' in stored || stored.id !== '') return stored;
  }
  return accountIdOf(request, entered.namespace);
}

/** The answer that ends a request at settling, or undefined when its auction runs. */
export type Settled = EndpointResponse | undefined | Promise<EndpointResponse | undefined>;

function settleUnder(loaded: AccountOutcome, entered: EnteredRequest, request: BidRequest, services: AuctionEndpointServices): Settled {
  if ('refusal' in loaded) return refusalAnswer(loaded.refusal);
  if (entered.impIdProblem !== undefined) return invalidRequest([entered.impIdProblem]);
  applyAccountDefaults(request, entered.namespace, loaded.account);
  resolveAuctionContext(entered.context, request, entered.namespace, loaded.account, services.config.auction);
  let stored: StoredResponsesOutcome | Promise<StoredResponsesOutcome>;
  try {
    stored = services.storedResponses.read(request, entered.namespace, { deadline: entered.context.deadline, amp: entered.context.endpoint === 'amp' });
  } catch (err) {
    return storedDataUnavailable(err, entered.context.logger);
  }
  if (!(stored instanceof Promise)) return keepStoredResponses(stored, entered);
  return stored.then(
    (outcome) => keepStoredResponses(outcome, entered),
    (err: unknown) => storedDataUnavailable(err, entered.context.logger),
  );
}

function keepStoredResponses(stored: StoredResponsesOutcome, entered: EnteredRequest): EndpointResponse | undefined {
  if (stored && 'errors' in stored) return invalidRequest(stored.errors);
  entered.context.storedResponses = stored;
  return undefined;
}

/** Runs the auction on the request (or one the endpoint built from it) under the request's settled context. */
export function runAuction(input: EndpointRequest, entered: EnteredRequest, services: AuctionEndpointServices, request: BidRequest = entered.request): Promise<AuctionOutcome> {
  // What the body leaves out (Prebid.js sends no IP or user agent, often no domain) comes from the HTTP request.
  services.implicitFields.fill(request, input, entered.namespace, { context: entered.context, storedRequest: entered.storedRequest !== undefined });
  return services.pipeline.run(request, entered.context, parseUidsCookie(input.uidsCookie, Date.now())).then((outcome) => {
    if (input.access) noteForAccessLine(input.access, entered.context, outcome);
    const transaction = input.transaction;
    if (transaction) {
      const { context } = entered;
      transaction.request = request;
      transaction.accountId = context.accountId;
      transaction.account = context.account;
      transaction.privacy = context.privacy;
    }
    return outcome;
  });
}

/** The account and the bidders the auction called (a bidder never called has no response time), for the access line. */
function noteForAccessLine(access: AccessNote, context: RequestContext, outcome: AuctionOutcome): void {
  access.account = context.accountId;
  if (outcome.kind !== 'completed') return;
  const called: string[] = [];
  for (const seat of outcome.seats) if (seat.responseTimeMs > 0) called.push(seat.bidder);
  access.bidders = called;
}

/** Maps a pipeline outcome to the auction endpoint's HTTP answer. */
function auctionAnswer(outcome: AuctionOutcome): EndpointResponse {
  if (outcome.kind === 'invalid') return invalidRequest(outcome.messages);
  if (outcome.kind === 'failed') return criticalAuctionError(outcome.message);
  return jsonResponse(200, outcome.response);
}

/**
 * POST /openrtb2/auction. Steps joined by `then` where a step answered with a promise, not an async function: the
 * auction endpoint is the hot path, and each await is a promise and a resumption more.
 */
export function handleAuction(input: EndpointRequest, services: AuctionEndpointServices): Promise<EndpointResponse> {
  const entered = enterRequest('auction', input, input.body ?? {}, services);
  return entered instanceof Promise ? entered.then((settled) => auctionOf(input, settled, services)) : auctionOf(input, entered, services);
}

function auctionOf(input: EndpointRequest, entered: Entered, services: AuctionEndpointServices): Promise<EndpointResponse> {
  if ('status' in entered) return Promise.resolve(observingTopics(input, entered));
  const refused = settleContext(entered, entered.request, services);
  return refused instanceof Promise ? refused.then((settled) => auctionSettled(input, entered, settled, services)) : auctionSettled(input, entered, refused, services);
}

function auctionSettled(input: EndpointRequest, entered: EnteredRequest, refused: EndpointResponse | undefined, services: AuctionEndpointServices): Promise<EndpointResponse> {
  if (refused) return Promise.resolve(finish(observingTopics(input, refused), entered.context, services.pipeline));
  return runAuction(input, entered, services).then((outcome) => finish(observingTopics(input, auctionAnswer(outcome)), entered.context, services.pipeline));
}

/**
 * The answer asking the browser to record the topics it sent (`Observe-Browsing-Topics: ?1`), whenever the request
 * carried a `Sec-Browsing-Topics` header, whatever the answer: Prebid Server's auction endpoint sets it before reading
 * the request (so the exitpoint stage sees it).
 */
function observingTopics(input: EndpointRequest, answer: EndpointResponse): EndpointResponse {
  if (headerValue(input.headers, SEC_BROWSING_TOPICS) === '') return answer;
  return { ...answer, headers: { ...answer.headers, [OBSERVE_BROWSING_TOPICS]: OBSERVE_BROWSING_TOPICS_VALUE } };
}

/** Runs the exitpoint stage over the answer about to be written. */
export function finish(answer: EndpointResponse, context: RequestContext, pipeline: AuctionPipeline): EndpointResponse | Promise<EndpointResponse> {
  return pipeline.hooked(context, 'exitpoint') ? runExitpoint(answer, context, pipeline) : answer;
}

async function runExitpoint(answer: EndpointResponse, context: RequestContext, pipeline: AuctionPipeline): Promise<EndpointResponse> {
  let exit = pipeline.stage('exitpoint', { status: answer.status, headers: answer.headers, body: answer.body }, context);
  if (exit instanceof Promise) exit = await exit;
  return { status: exit.payload.status, headers: exit.payload.headers, body: exit.payload.body };
}
