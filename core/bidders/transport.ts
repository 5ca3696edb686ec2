import { gzipSync } from 'node:zlib';
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, util, type Dispatcher } from 'undici';
import type { RequestData, ResponseData } from '../api/index.js';

export interface SendOptions {
  /** Time left for this call: the transport gives up (a timeout) once it passes. */
  timeoutMs: number;
  /** Gzip the body (the bidder's `endpointCompression`). */
  gzip?: boolean;
}

/**
 * How bidder calls leave the process. The hot path: the default is undici with keep-alive pools; tests and the
 * fixture runners bind their own through DI.
 */
export const BidderTransport = Symbol('BidderTransport');
export interface BidderTransport {
  send(call: RequestData, bodyText: string | undefined, options: SendOptions): Promise<ResponseData>;
  close(): Promise<void>;
}

export class ResponseTooLargeError extends Error {}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** True when a transport failure means the bidder ran out of time (error code 1), not that it failed. */
export function isTimeout(err: unknown): boolean {
  return TIMEOUT_CODES.has((err as { code?: string })?.code ?? '');
}

const JSON_CONTENT_TYPE = 'application/json;charset=utf-8';

/** undici's response headers with repeated ones joined by ", ", in place: the object is this call's alone. */
function joinRepeatedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  for (const key in headers) {
    const value = headers[key];
    if (value === undefined) delete headers[key];
    else if (typeof value !== 'string') headers[key] = value.join(', ');
  }
  return headers as Record<string, string>;
}

/** UTF-8 with a leading byte-order mark dropped, as undici's `body.text()` reads a body. */
function decodeBody(chunks: Buffer[], length: number): string {
  if (length === 0) return '';
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
  const start = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString('utf8', start);
}

/** A bidder's answer. Its headers are parsed on first read: no adapter of ours reads them, and most never will. */
class BidderAnswer implements ResponseData {
  private parsedHeaders: Record<string, string> | undefined;

  constructor(
    readonly status: number,
    readonly body: string,
    private readonly rawHeaders: Buffer[],
  ) {}

  get headers(): Record<string, string> {
    return (this.parsedHeaders ??= joinRepeatedHeaders(util.parseHeaders(this.rawHeaders)));
  }
}

/**
 * One bidder call, collected straight from undici's dispatch callbacks. undici's `request()` would wrap the same
 * callbacks in an async resource, a readable stream for the body and a consumer for `text()`: per call, more work
 * than the rest of the call's bookkeeping, for a body that is read whole anyway.
 *
 * These are the callbacks undici 7's own handlers implement (its types mark them deprecated in favour of the
 * controller-based ones, which undici 7 adapts back to these through a wrapper that also parses every response's
 * headers and trailers eagerly). undici is pinned to 7 while Gavel runs on Node 20; moving to 8 means moving this
 * class to `onRequestStart`/`onResponseStart`/`onResponseData`/`onResponseEnd`/`onResponseError`.
 */
class CollectedAnswer implements Dispatcher.DispatchHandler {
  private status = 0;
  private rawHeaders: Buffer[] = [];
  private readonly chunks: Buffer[] = [];
  private length = 0;

  constructor(
    private readonly resolve: (answer: ResponseData) => void,
    private readonly reject: (err: Error) => void,
    private readonly maxResponseBytes: number,
  ) {}

  /** Runs again if undici retries the call on a fresh connection: whatever the failed attempt left is dropped. */
  onConnect(): void {
    this.status = 0;
    this.rawHeaders = [];
    this.chunks.length = 0;
    this.length = 0;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    this.status = statusCode;
    this.rawHeaders = rawHeaders;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.length += chunk.length;
    return true;
  }

  onComplete(): void {
    this.resolve(new BidderAnswer(this.status, decodeBody(this.chunks, this.length), this.rawHeaders));
  }

  onError(err: Error): void {
    // undici enforces the size limit itself (the Agent's maxResponseSize) and aborts the read past it.
    if ((err as { code?: string }).code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') this.reject(new ResponseTooLargeError(`response larger than ${this.maxResponseBytes} bytes`));
    else this.reject(err);
  }
}

export class UndiciBidderTransport implements BidderTransport {
  private readonly agent: Agent;
  private readonly maxResponseBytes: number;

  constructor(options: { connectionsPerHost: number; keepAliveTimeoutMs: number }, maxResponseBytes: number) {
    this.maxResponseBytes = maxResponseBytes;
    this.agent = new Agent({
      connections: options.connectionsPerHost,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      pipelining: 1,
      // undici enforces the response size limit itself and aborts the read past it.
      maxResponseSize: maxResponseBytes,
    });
  }

  send(call: RequestData, bodyText: string | undefined, options: SendOptions): Promise<ResponseData> {
    // Everything runs in the executor, so whatever throws (a URL the parser refuses, say) becomes a rejection.
    return new Promise((resolve, reject) => {
      let body: string | Buffer | undefined = call.method === 'GET' ? undefined : bodyText;
      let headers = call.headers;
      if (body !== undefined && (options.gzip || headers?.['content-type'] === undefined)) {
        // A copy: the adapter's headers are what `ext.debug.httpcalls` reports as sent by the adapter.
        headers = headers ? { ...headers } : {};
        headers['content-type'] ??= JSON_CONTENT_TYPE;
        if (options.gzip) {
          body = gzipSync(body);
          headers['content-encoding'] = 'gzip';
        }
      }
      const { origin, path } = splitUri(call.uri);
      this.agent.dispatch(
        {
          origin,
          path,
          method: call.method,
          headers,
          body,
          // undici's own timers, not an AbortSignal: a signal's listeners cost more per call than the request itself.
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        },
        new CollectedAnswer(resolve, reject, this.maxResponseBytes),
      );
    });
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

const PLAIN_AUTHORITY = /^[A-Za-z0-9.:[\]-]+$/;

/**
 * Splits an absolute URL into origin and path, by string scanning when the authority is plain host[:port] (the
 * common case), else with the WHATWG parser, so what is sent always agrees with what the endpoint check parsed.
 */
export function splitUri(uri: string): { origin: string; path: string } {
  const authorityStart = uri.indexOf('://') + 3;
  let pathStart = uri.length;
  for (let i = authorityStart; i < uri.length; i++) {
    const char = uri.charCodeAt(i);
    if (char === 47 /* / */ || char === 63 /* ? */ || char === 35 /* # */) {
      pathStart = i;
      break;
    }
  }
  if (!PLAIN_AUTHORITY.test(uri.slice(authorityStart, pathStart))) {
    const url = new URL(uri);
    return { origin: url.origin, path: `${url.pathname}${url.search}` };
  }
  const rest = uri.slice(pathStart);
  const withoutFragment = rest.includes('#') ? rest.slice(0, rest.indexOf('#')) : rest;
  return { origin: uri.slice(0, pathStart), path: withoutFragment.startsWith('/') ? withoutFragment : `/${withoutFragment}` };
}
