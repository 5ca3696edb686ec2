import type { IncomingHttpHeaders } from 'node:http';
import type { PluginLogger } from '../api/index.js';
import type { AccessNote } from '../http/request-log.js';
import type { TransactionNote } from '../analytics/index.js';

/** An HTTP request as the endpoints see it, with the edge's work (body limits, decompression) done. */
export interface EndpointRequest {
  method: string;
  path: string;
  /** Values of the route's `:name` parameters, decoded. */
  params?: Readonly<Record<string, string>>;
  headers: IncomingHttpHeaders;
  query: Record<string, string>;
  /** The parsed JSON body (POST endpoints). */
  body?: Record<string, unknown>;
  /** Came over TLS, or through a proxy that says `X-Forwarded-Proto: https`. */
  secure: boolean;
  /** The socket's peer address (device facts fill `device.ip` from it, core/privacy). */
  remoteAddress?: string;
  /** Epoch ms at arrival: tmax counts from here. */
  receivedAt: number;
  /** Raw value of the `uids` cookie, if any. */
  uidsCookie?: string;
  /** The request's id (`X-Request-Id`, sent or made at the edge). */
  requestId?: string;
  /** Writes lines carrying the request id. */
  logger?: PluginLogger;
  /** Filled by the endpoint for the access line (account, bidders called) when the host keeps an access log. */
  access?: AccessNote;
  /** Filled by an endpoint that runs an auction for the analytics record (the request as auctioned, its account), when analytics is on. */
  transaction?: TransactionNote;
}

/** What the edge writes back: JSON for objects, text for strings. */
export interface EndpointResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** A 400 with one `Invalid request: <message>` line per problem (reference-behaviour section 2). */
export function invalidRequest(messages: string[]): EndpointResponse {
  return {
    status: 400,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body: messages.map((message) => `Invalid request: ${message}\n`).join(''),
  };
}

/** Prebid Server's 500 for an auction that could not run to its end (its auction and AMP endpoints word it alike). */
export function criticalAuctionError(message: string): EndpointResponse {
  return { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `Critical error while running the auction: ${message}` };
}

export function jsonResponse(status: number, body: unknown): EndpointResponse {
  return { status, headers: { 'content-type': 'application/json' }, body };
}
