import { gzipSync } from 'node:zlib';
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { Agent, parseHeaders } from './undici-agent.js';
import type { RequestData, ResponseData } from '../api/index.js';

export interface SendOptions {
  /**
   * Time left for this call: the transport gives up (a timeout) once it passes. Only for a call no auction tracks
   * (`calls` absent): a tracked call ends when its auction ends it.
   */
  timeoutMs: number;
  /**
   * When the auction stops waiting for this call (epoch ms). A call still queued then is never sent, and one whose
   * answer is still arriving then (a bidder dripping its body) is aborted: `timeoutMs` alone is an idle limit.
   */
  deadline?: number;
  /** The auction's calls: when the auction stops waiting, every one of them still out is aborted at once. */
  calls?: AuctionCalls;
  /** Gzip the body (the bidder's `endpointCompression`). */
  gzip?: boolean;
}

/** Why the transport ended or refused a call on its own: each is counted (`gavel_bidder_calls_shed_total`). */
export type ShedReason = 'queue-full' | 'deadline';

export interface TransportLimits {
  connectionsPerHost: number;
  keepAliveTimeoutMs: number;
  /** Calls that may wait for a connection per origin, beyond the pool's own; past it a call fails at once. */
  maxPendingPerHost?: number;
}

/**
 * How bidder calls leave the process. The hot path: the default is undici with keep-alive pools; tests and the
 * fixture runners bind their own through DI.
 */
export const BidderTransport = Symbol('BidderTransport');
export interface BidderTransport {
  send(call: RequestData, bodyText: string | undefined, options: SendOptions): Promise<ResponseData>;
  /** Ends the transport: calls still out get at most `graceMs` to finish, then their connections are destroyed. */
  close(graceMs?: number): Promise<void>;
}

export class ResponseTooLargeError extends Error {}

/** The auction stopped waiting for this call: it was aborted, or never sent. A timeout (bidder error code 1). */
export class CallDeadlineError extends Error {
  readonly code = 'GAVEL_CALL_DEADLINE';
  constructor() {
    super('the auction stopped waiting for this call');
  }
}

/** The bidder's host already has a full pool and a full queue: the call fails at once rather than wait. A timeout (code 1). */
export class HostQueueFullError extends Error {
  readonly code = 'GAVEL_HOST_QUEUE_FULL';
  constructor(origin: string, limit: number) {
    super(`${limit} calls to ${origin} are already open or waiting`);
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'GAVEL_CALL_DEADLINE', 'GAVEL_HOST_QUEUE_FULL']);

/**
 * The bidder calls of one auction. When the auction stops waiting (its deadline, or every bidder answered) it ends
 * them: each still out is aborted whatever its socket is doing. One list per auction rather than an AbortSignal per
 * call: a signal's listeners cost more per call than the call's own bookkeeping.
 */
export class AuctionCalls {
  private readonly calls: Array<{ expire(): void }> = [];
  private ended = false;

  track(call: { expire(): void }): void {
    if (this.ended) call.expire();
    else this.calls.push(call);
  }

  /** Aborts every call still out (a call already answered ignores it). */
  end(): void {
    this.ended = true;
    for (const call of this.calls) call.expire();
    this.calls.length = 0;
  }
}

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
    return (this.parsedHeaders ??= joinRepeatedHeaders(parseHeaders(this.rawHeaders)));
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
  /** undici's abort for this call, from the moment it is written to a socket. */
  private abort: ((err: Error) => void) | undefined;
  /** The caller has its outcome (an answer, a failure, or the deadline). */
  private settled = false;
  /** undici is done with the call: its place in the host's count is given back. */
  private released = false;

  constructor(
    private readonly resolve: (answer: ResponseData) => void,
    private readonly reject: (err: Error) => void,
    private readonly maxResponseBytes: number,
    private readonly deadline: number,
    private readonly origin: string,
    private readonly transport: UndiciBidderTransport,
  ) {}

  private shed(reason: ShedReason): void {
    this.transport.onShed(reason);
  }

  /**
   * Runs when undici writes the call to a socket (again if it retries on a fresh connection: whatever the failed
   * attempt left is dropped). A call whose auction stopped waiting while it queued is never sent: throwing here makes
   * undici drop it from the queue without touching the socket.
   */
  onConnect(abort: (err?: Error) => void): void {
    if (this.settled || Date.now() >= this.deadline) {
      if (!this.settled) this.shed('deadline');
      throw new CallDeadlineError();
    }
    this.abort = abort;
    this.status = 0;
    this.rawHeaders = [];
    this.chunks.length = 0;
    this.length = 0;
  }

  /** The auction stopped waiting: a call on a socket is aborted (undici closes that socket), a queued one is skipped when its turn comes. */
  expire(): void {
    if (this.settled) return;
    this.shed('deadline');
    if (this.abort) this.abort(new CallDeadlineError());
    else this.fail(new CallDeadlineError());
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    this.status = statusCode;
    this.rawHeaders = rawHeaders;
    return true;
  }

  onData(chunk: Buffer): boolean {
    // A total-time limit on the body: undici's body timeout restarts with every chunk, so a bidder dripping bytes
    // would otherwise hold the connection long after its auction. undici aborts the call on this throw.
    if (Date.now() >= this.deadline) {
      if (!this.settled) this.shed('deadline');
      throw new CallDeadlineError();
    }
    this.chunks.push(chunk);
    this.length += chunk.length;
    return true;
  }

  onComplete(): void {
    this.done();
    if (this.settled) return;
    this.settled = true;
    this.resolve(new BidderAnswer(this.status, decodeBody(this.chunks, this.length), this.rawHeaders));
  }

  onError(err: Error): void {
    this.done();
    // undici enforces the size limit itself (the Agent's maxResponseSize) and aborts the read past it.
    if ((err as { code?: string }).code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') this.fail(new ResponseTooLargeError(`response larger than ${this.maxResponseBytes} bytes`));
    else this.fail(err);
  }

  private fail(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(err);
  }

  private done(): void {
    if (this.released) return;
    this.released = true;
    this.transport.release(this.origin);
  }
}

export class UndiciBidderTransport implements BidderTransport {
  private readonly agent: Agent;
  private readonly maxResponseBytes: number;
  /** Calls each origin has open or waiting in undici's queue; an origin leaves the map when it has none. */
  private readonly openPerOrigin = new Map<string, number>();
  /** How many calls an origin may have open or waiting: its pool plus its pending queue. */
  private readonly maxOpenPerOrigin: number;
  /** Told when the last call out ends, while `close()` waits for it. */
  private whenIdle: (() => void) | undefined;

  constructor(
    options: TransportLimits,
    maxResponseBytes: number,
    readonly onShed: (reason: ShedReason) => void = () => {},
  ) {
    this.maxResponseBytes = maxResponseBytes;
    this.maxOpenPerOrigin = options.connectionsPerHost + (options.maxPendingPerHost ?? options.connectionsPerHost);
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
      const deadline = options.deadline ?? Date.now() + options.timeoutMs;
      if (Date.now() >= deadline) {
        this.onShed('deadline');
        reject(new CallDeadlineError());
        return;
      }
      const open = this.openPerOrigin.get(origin) ?? 0;
      if (open >= this.maxOpenPerOrigin) {
        this.onShed('queue-full');
        reject(new HostQueueFullError(origin, this.maxOpenPerOrigin));
        return;
      }
      this.openPerOrigin.set(origin, open + 1);
      const handler = new CollectedAnswer(resolve, reject, this.maxResponseBytes, deadline, origin, this);
      options.calls?.track(handler);
      try {
        // A call the auction ends itself (its `calls`) needs no timer of undici's: undici makes a new one for every
        // call whose limit differs from the last on that connection, and a remaining time always differs. Those
        // timers live until undici's next sweep, half a second on, long enough for the collector to copy and
        // promote each of them.
        this.dispatch(origin, path, call.method, headers, body, options.calls ? 0 : options.timeoutMs, handler);
      } catch (err) {
        handler.onError(err as Error);
      }
    });
  }

  private dispatch(origin: string, path: string, method: RequestData['method'], headers: Record<string, string> | undefined, body: string | Buffer | undefined, timeoutMs: number, handler: CollectedAnswer): void {
    this.agent.dispatch(
        {
          origin,
          path,
          method,
          headers,
          body,
          // undici's own timers, not an AbortSignal: a signal's listeners cost more per call than the request itself.
          // 0 turns them off.
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        },
        handler,
      );
  }

  /** A call to `origin` ended, for undici too: its place in the origin's count is free. */
  release(origin: string): void {
    const open = this.openPerOrigin.get(origin)!;
    if (open > 1) this.openPerOrigin.set(origin, open - 1);
    else {
      this.openPerOrigin.delete(origin);
      if (this.openPerOrigin.size === 0) this.whenIdle?.();
    }
  }

  /** Calls open or waiting per origin (for tests and the drain). */
  openCalls(origin: string): number {
    return this.openPerOrigin.get(origin) ?? 0;
  }

  /**
   * Lets the calls out finish, for at most `graceMs`; then destroys the pools. Not undici's `close()` first: it waits
   * for every queued call however long its bidder drips, and it forgets the pools, so a `destroy()` after it reaches none.
   */
  async close(graceMs = 0): Promise<void> {
    if (this.openPerOrigin.size > 0 && graceMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.whenIdle = resolve;
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
      this.whenIdle = undefined;
    }
    if (this.openPerOrigin.size === 0) await this.agent.close();
    else await this.agent.destroy(new Error('gavel is shutting down'));
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
