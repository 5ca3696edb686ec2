import { gzipSync } from 'node:zlib';
import { Agent, request as undiciRequest } from 'undici';
import type { RequestData, ResponseData } from '../api/index.js';

export interface SendOptions {
  /** Aborts the call when the auction's bidder deadline passes. */
  signal: AbortSignal;
  /** Gzip the body (the bidder's `endpointCompression`). */
  gzip?: boolean;
}

/** What actually crosses the wire for one bidder call, kept for `ext.debug.httpcalls`. */
export interface SentCall {
  request: RequestData;
  bodyText?: string;
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

export class UndiciBidderTransport implements BidderTransport {
  private readonly agent: Agent;

  constructor(
    options: { connectionsPerHost: number; keepAliveTimeoutMs: number },
    private readonly maxResponseBytes: number,
  ) {
    this.agent = new Agent({ connections: options.connectionsPerHost, keepAliveTimeout: options.keepAliveTimeoutMs, pipelining: 1 });
  }

  async send(call: RequestData, bodyText: string | undefined, options: SendOptions): Promise<ResponseData> {
    const headers: Record<string, string> = { ...call.headers };
    let body: string | Buffer | undefined = bodyText;
    if (body !== undefined) {
      headers['content-type'] ??= 'application/json;charset=utf-8';
      if (options.gzip) {
        body = gzipSync(body);
        headers['content-encoding'] = 'gzip';
      }
    }
    const response = await undiciRequest(call.uri, {
      dispatcher: this.agent,
      method: call.method,
      headers,
      body: call.method === 'GET' ? undefined : body,
      signal: options.signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > this.maxResponseBytes) {
        response.body.destroy();
        throw new ResponseTooLargeError(`response larger than ${this.maxResponseBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    const responseHeaders: Record<string, string> = {};
    for (const [key, value] of Object.entries(response.headers)) {
      if (value !== undefined) responseHeaders[key] = Array.isArray(value) ? value.join(', ') : value;
    }
    return { status: response.statusCode, body: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'), headers: responseHeaders };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
