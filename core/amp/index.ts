import type { EndpointServices } from '../app/endpoints.js';
import { enterRequest, finish, MIN_STORED_FETCH_MS, runAuction, settleContext, storedDataUnavailable } from '../auction/auction-endpoint.js';
import { StoredFetchError } from '../stored/index.js';
import { invalidRequest, type EndpointRequest, type EndpointResponse } from '../auction/endpoint-types.js';
import { detectNamespace, unifyNamespaces } from '../auction/namespace.js';
import type { EndpointHandler } from '../http/app.js';
import { ampAnswer, criticalError, emptyAmpAnswer, encodeAmpBody } from './amp-answer.js';
import { applyAmpParams } from './amp-request.js';
import { AMP_CRITICAL_ERROR_CODE, responseErrors } from './messages.js';
import { readAmpParams, type AmpParams } from './params.js';
import { loadAmpRequest } from './stored-request.js';

export { readAmpParams, parseMultiSize, type AmpParams, type AmpSizes } from './params.js';
export { resolveBannerFormats } from './sizes.js';
export { loadingErrors, responseErrors } from './messages.js';

const AMP_PATH = '/openrtb2/amp';

/** GET /openrtb2/amp. */
export function ampRoutes(services: EndpointServices): { get: Record<string, EndpointHandler> } {
  return { get: { [AMP_PATH]: (request) => handleAmp(request, services) } };
}

/**
 * GET /openrtb2/amp (spec 4.3, reference behaviour 10): the stored request named by `tag_id`, adjusted by the
 * query, runs through the ordinary auction pipeline; the answer is the targeting of its bids. Every answer, errors
 * included, carries AMP's CORS header so the AMP runtime may read it.
 */
async function handleAmp(input: EndpointRequest, services: EndpointServices): Promise<EndpointResponse> {
  const params = readAmpParams(input.query);
  const logger = input.logger ?? services.logger;
  let answer: EndpointResponse;
  try {
    answer = await runAmpAuction(input, params, services);
  } catch (err) {
    // The stored-data backend failing is the host's passing trouble, answered 503 as on the other endpoints.
    if (err instanceof StoredFetchError) answer = storedDataUnavailable(err, logger);
    else {
      logger.error({ err, code: AMP_CRITICAL_ERROR_CODE, tagId: params.tagId }, responseErrors.auctionData);
      answer = criticalError(responseErrors.auctionData);
    }
  }
  const origin = params.sourceOrigin ?? headerValue(input.headers.origin);
  return withAmpCors(encodeAmpBody(answer, logger), origin, services.config.cors.allowedOrigins);
}

/** The AMP auction's deadline as the query sets it (spec section 8), which the stored request's fetch must meet. */
function ampFetchDeadline(input: EndpointRequest, params: AmpParams, services: EndpointServices): number {
  const { amp, auction } = services.config;
  const asked = Math.min(amp.defaultTimeoutMs, params.timeoutMs ?? amp.defaultTimeoutMs) - (params.timeoutAdjustmentMs ?? amp.timeoutAdjustmentMs);
  // A tiny `timeout` is the client's choice, but must not make a healthy backend look down (a 503).
  return input.receivedAt + Math.min(Math.max(MIN_STORED_FETCH_MS, asked), auction.maxTmaxMs);
}

async function runAmpAuction(input: EndpointRequest, params: AmpParams, services: EndpointServices): Promise<EndpointResponse> {
  const loaded = await loadAmpRequest(params.tagId, services.stored, { deadline: ampFetchDeadline(input, params, services) });
  if ('error' in loaded) return invalidRequest([loaded.error]);
  const request = loaded.request;
  // The namespace must be known before the endpoint writes `ext.<ns>.targeting` into the request; a stored request
  // that names neither speaks the host's default, as on the auction endpoint.
  const namespace = detectNamespace(request, services.config.auction.defaultNamespace);
  unifyNamespaces(request, namespace);
  const built = applyAmpParams(request, params, namespace, services.config.amp, services.config.privacy.gdpr.enabled, services.config.auction.generateRequestId);

  const entered = await enterRequest('amp', input, request as Record<string, unknown>, services);
  // A module's reject at the entrypoint is answered without warnings, as Prebid Server answers it.
  if ('status' in entered) return entered.status === 200 ? emptyAmpAnswer() : entered;
  let refused = settleContext(entered, entered.request, services);
  if (refused instanceof Promise) refused = await refused;
  if (refused) return finish(refused, entered.context, services.pipeline);
  // Prebid Server adds the endpoint's warnings to the exchange's own (its account debug warning first) and before
  // those of validation; in the context now, they take that place in the answer.
  for (const warning of built.warnings) entered.context.warn('general', warning);
  const outcome = await runAuction(input, entered, services);
  const answer = ampAnswer(outcome, {
    namespace: entered.namespace,
    journal: entered.context.journal,
    logger: entered.context.logger,
    tagId: params.tagId ?? '',
  });
  return finish(answer, entered.context, services.pipeline);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

/**
 * AMP's CORS (reference behaviour 10): the edge already echoes `Origin` with credentials; AMP also wants the page's
 * own origin named in `AMP-Access-Control-Allow-Source-Origin`, exposed to its script. With a host allow-list,
 * only listed origins are named.
 */
function withAmpCors(answer: EndpointResponse, sourceOrigin: string | undefined, allowedOrigins: string[]): EndpointResponse {
  if (sourceOrigin === undefined) return answer;
  if (allowedOrigins.length > 0 && !allowedOrigins.includes(sourceOrigin)) return answer;
  return {
    ...answer,
    headers: {
      ...answer.headers,
      'AMP-Access-Control-Allow-Source-Origin': sourceOrigin,
      'Access-Control-Expose-Headers': 'AMP-Access-Control-Allow-Source-Origin',
    },
  };
}
