import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonObject } from '../api/index.js';
import type { EndpointRequest, EndpointResponse } from '../auction/endpoint-types.js';
import type { AdminMount } from '../metrics/index.js';
import { renderAuction, renderList } from './page.js';
import type { InspectorStore } from './store.js';

/** Largest request the replay form takes. */
const MAX_REPLAY_BYTES = 256 * 1024;

/** Runs an auction request the way `POST /openrtb2/auction` does. */
export type AuctionRunner = (input: EndpointRequest) => Promise<EndpointResponse>;

function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json', JSON.stringify(value));
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > MAX_REPLAY_BYTES) return undefined;
  }
  return text;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

/** Replays a pasted request with `test: 1`, recorded whatever the sample rate: the answer and the record's id. */
async function replay(req: IncomingMessage, res: ServerResponse, store: InspectorStore, run: AuctionRunner): Promise<void> {
  const text = await readBody(req);
  if (text === undefined) return sendJson(res, 413, { error: `the request is larger than ${MAX_REPLAY_BYTES} bytes` });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    return sendJson(res, 400, { error: `the request is not JSON: ${(err as Error).message}` });
  }
  if (!isJsonObject(body)) return sendJson(res, 400, { error: 'the request must be a JSON object (an OpenRTB BidRequest)' });
  const input: EndpointRequest = {
    method: 'POST',
    path: '/openrtb2/auction',
    params: {},
    headers: { 'content-type': 'application/json' },
    query: {},
    body: { ...body, test: 1 },
    secure: false,
    receivedAt: performance.timeOrigin + performance.now(),
  };
  const id = store.replaying(input);
  input.requestId = `inspector-replay-${id}`;
  const answer = await run(input);
  sendJson(res, 200, { recordId: store.get(id) ? id : undefined, status: answer.status, response: answer.body });
}

/**
 * The auction inspector on the admin listener: `GET /inspector` (recent auctions), `GET /inspector/<id>` (one
 * auction's timeline), their JSON under `/inspector/api/auctions[/<id>]`, and `POST /inspector/api/replay`.
 */
export function inspectorMount(store: InspectorStore, run: AuctionRunner, now: () => number = Date.now): AdminMount {
  return {
    prefix: '/inspector',
    async serve(req, res, path) {
      const method = req.method ?? 'GET';
      if (path === '/inspector/api/replay') {
        if (method !== 'POST') return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { allow: 'POST' });
        return replay(req, res, store, run);
      }
      if (method !== 'GET' && method !== 'HEAD') return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { allow: 'GET, HEAD' });
      if (path === '/inspector') return send(res, 200, 'text/html; charset=utf-8', renderList(store.list(), store.settings));
      if (path === '/inspector/api/auctions') return sendJson(res, 200, store.list());
      const api = /^\/inspector\/api\/auctions\/([^/]+)$/.exec(path);
      const html = /^\/inspector\/([^/]+)$/.exec(path);
      const record = store.get(decoded((api ?? html)?.[1] ?? ''));
      if (!record || (!api && !html)) return send(res, 404, 'text/plain; charset=utf-8', 'no such auction: it was not recorded, or is no longer kept\n');
      if (api) return sendJson(res, 200, record);
      return send(res, 200, 'text/html; charset=utf-8', renderAuction(record, now()));
    },
  };
}
