import { isJsonObject, type BidResponse, type PluginLogger } from '../api/index.js';
import type { RequestJournal } from '../context/request-context.js';
import type { Namespace } from '../auction/namespace.js';
import type { AuctionOutcome } from '../auction/pipeline.js';
import { criticalAuctionError, invalidRequest, type EndpointResponse } from '../auction/endpoint-types.js';
import { AMP_CRITICAL_ERROR_CODE, AMP_UNKNOWN_ERROR_CODE, responseErrors } from './messages.js';

/** What the auction's `response.ext.<ns>` tells an AMP page: the hooks trace and, when asked for, the seat non-bids. */
export interface AmpAuctionReport {
  modules?: unknown;
  seatnonbid?: unknown;
}

/** The body of a 200 from GET /openrtb2/amp (spec 2.17). */
export interface AmpResponseBody {
  targeting: Record<string, string>;
  errors: Record<string, unknown>;
  warnings?: Record<string, unknown>;
  debug?: unknown;
  /** `prebid` or `svc`, the request's namespace: see auctionReport. */
  prebid?: AmpAuctionReport;
  svc?: AmpAuctionReport;
}

/**
 * AMP reads the answer as text and parses it itself (reference behaviour 10); `nosniff` keeps browsers from
 * second-guessing that.
 */
const AMP_CONTENT_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/plain; charset=utf-8',
  'x-content-type-options': 'nosniff',
};

function ampJsonAnswer(body: AmpResponseBody): EndpointResponse {
  return { status: 200, headers: { ...AMP_CONTENT_HEADERS }, body };
}

/** A spec 7.3 critical error: HTTP 500 with the message as text. */
export function criticalError(message: string): EndpointResponse {
  return { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `${message}\n` };
}

/** The answer when a module ended the request at its entrypoint: no targeting, so the ad server fills the slot its own way. */
export function emptyAmpAnswer(): EndpointResponse {
  return ampJsonAnswer({ targeting: {}, errors: {} });
}

/** Prebid Server's account debug warning, which its exchange adds only to an auction it ran. */
const ACCOUNT_DEBUG_WARNING_CODE = 10002;

/**
 * The answer when a module rejected the auction: no targeting, and, as Prebid Server's, the request's warnings so far
 * (the query's, validation's; not the account's debug warning, which only an auction that ran gets) and the hooks
 * trace.
 */
function rejectedAmpAnswer(journal: RequestJournal, namespace: Namespace): EndpointResponse {
  const warnings = (journal.warnings?.general ?? []).filter((warning) => warning.code !== ACCOUNT_DEBUG_WARNING_CODE);
  const body = withWarnings({ targeting: {}, errors: {} }, { general: warnings });
  const trace = journal.trace;
  return ampJsonAnswer(trace && trace.length > 0 ? { ...body, [namespace]: { modules: { trace } } } : body);
}


class UnpackTargetsError extends Error {}

/**
 * The targeting keys of the bids the AMP page can show: those cached (their ext names an `hb_cache_id`, as Prebid
 * Server looks for it), the winner's plain keys plus each bidder's suffixed keys (an AMP request has one imp, so
 * there is one winner). Read from the final response, after the auction-response stage, so modules that edit
 * targeting there are honoured.
 */
function collectTargeting(response: BidResponse, namespace: Namespace): Record<string, string> {
  const targeting: Record<string, string> = {};
  for (const seat of response.seatbid ?? []) {
    for (const bid of seat.bid ?? []) {
      // Prebid Server's test is on the bid's ext as text, so a cache id key anywhere in it counts.
      if (!JSON.stringify(bid.ext ?? null).includes('"hb_cache_id')) continue;
      const serviceExt = isJsonObject(bid.ext) ? bid.ext[namespace] : undefined;
      const keys = isJsonObject(serviceExt) ? serviceExt.targeting : undefined;
      if (keys === undefined) continue;
      if (!isJsonObject(keys)) throw new UnpackTargetsError(`bid ${bid.id} has targeting that is not an object`);
      for (const [key, value] of Object.entries(keys)) {
        if (typeof value !== 'string') throw new UnpackTargetsError(`bid ${bid.id} has a targeting value for ${key} that is not a string`);
        targeting[key] = value;
      }
    }
  }
  return targeting;
}

function withWarnings(body: AmpResponseBody, warnings: Record<string, unknown>): AmpResponseBody {
  const present = Object.entries(warnings).filter(([, list]) => !Array.isArray(list) || list.length > 0);
  return present.length > 0 ? { ...body, warnings: Object.fromEntries(present) } : body;
}

export interface AnswerContext {
  namespace: Namespace;
  /** What the request left for its answer: read for an auction a module rejected (one that ran carries it). */
  journal: RequestJournal;
  logger: PluginLogger;
  tagId: string;
}

/** Maps the auction's outcome to the AMP answer (spec 2.17, 7.3). */
export function ampAnswer(outcome: AuctionOutcome, context: AnswerContext): EndpointResponse {
  if (outcome.kind === 'invalid') return invalidRequest(outcome.messages);
  if (outcome.kind === 'failed') return criticalAuctionError(outcome.message);
  if (outcome.kind === 'rejected') return rejectedAmpAnswer(context.journal, context.namespace);

  const response = outcome.response;
  let targeting: Record<string, string>;
  try {
    targeting = collectTargeting(response, context.namespace);
  } catch (err) {
    if (!(err instanceof UnpackTargetsError)) throw err;
    context.logger.error({ code: AMP_CRITICAL_ERROR_CODE, tagId: context.tagId, reason: err.message }, responseErrors.unpackTargets);
    return criticalError(responseErrors.unpackTargets);
  }

  const ext = response.ext;
  if (ext !== undefined && !isJsonObject(ext)) {
    context.logger.warn({ code: AMP_UNKNOWN_ERROR_CODE, tagId: context.tagId }, responseErrors.unpackExt);
  }
  const responseExt = isJsonObject(ext) ? ext : {};
  const errors = responseExt.errors;
  if (errors !== undefined && !isJsonObject(errors)) {
    context.logger.warn({ code: AMP_UNKNOWN_ERROR_CODE, tagId: context.tagId }, responseErrors.unpackExt);
  }
  let body: AmpResponseBody = withWarnings({ targeting, errors: isJsonObject(errors) ? errors : {} }, isJsonObject(responseExt.warnings) ? responseExt.warnings : {});
  const report = auctionReport(responseExt[context.namespace]);
  if (report !== undefined) body = { ...body, [context.namespace]: report };
  // Prebid Server forwards the debug output of a request with `test: 1`, whether the query's `debug=1` or the stored
  // request set it.
  if (outcome.request.test === 1) {
    if (responseExt.debug === undefined) {
      context.logger.warn({ code: AMP_UNKNOWN_ERROR_CODE, tagId: context.tagId }, responseErrors.debugMissing);
    } else {
      body = { ...body, debug: responseExt.debug };
    }
  }
  return ampJsonAnswer(body);
}

/**
 * Of the auction's `response.ext.<ns>`, what Prebid Server's AMP answer keeps (`ext.prebid.modules`, and
 * `ext.prebid.seatnonbid` when the request set `returnallbidstatus`); beside `errors` and `warnings`, where Gavel
 * puts the answer's ext members.
 */
function auctionReport(options: unknown): AmpAuctionReport | undefined {
  if (!isJsonObject(options)) return undefined;
  const { modules, seatnonbid } = options;
  if (modules === undefined && seatnonbid === undefined) return undefined;
  return { ...(modules !== undefined && { modules }), ...(seatnonbid !== undefined && { seatnonbid }) };
}

/**
 * The answer's body as the text written on the wire. An answer that cannot be encoded (a module left something
 * JSON cannot hold) is logged and replaced by its targeting alone, or by an empty answer when even that fails.
 */
export function encodeAmpBody(answer: EndpointResponse, logger: PluginLogger): EndpointResponse {
  if (typeof answer.body === 'string') return answer;
  try {
    return { ...answer, body: JSON.stringify(answer.body) };
  } catch (err) {
    logger.error({ code: AMP_UNKNOWN_ERROR_CODE, err }, responseErrors.encoding);
    const targeting = isJsonObject(answer.body) && isJsonObject(answer.body.targeting) ? answer.body.targeting : {};
    return { ...answer, body: encodeOrEmpty({ targeting, errors: {} }) };
  }
}

function encodeOrEmpty(body: AmpResponseBody | { targeting: Record<string, unknown>; errors: object }): string {
  try {
    return JSON.stringify(body);
  } catch {
    return '{"targeting":{},"errors":{}}';
  }
}
