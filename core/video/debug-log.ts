import type { EndpointRequest, EndpointResponse } from '../auction/endpoint-types.js';
import type { CacheClient } from '../cache/index.js';

/**
 * The video endpoint's debug log, as Prebid Server keeps it: asked for with `?debug=true` (or the host's debug
 * override header), the request body, its headers and the answer's `ext` are stored in the bid cache as one XML
 * document (`<Log><Request/><Headers/><Response/></Log>`, `<` and `>` taken out of the data so it stays well formed),
 * for the host to read back with `GET /cache?uuid=<id>`; a refused request's log has, for its response, its errors
 * (`\nErrors:\n<one message a line>`, as Prebid Server writes them). The id is in the answer: in `ext.debug.logcacheid`, or, when
 * no pod was filled, as Prebid Server gives it, as the `hb_cache_id` of the only pod entry; an error answer names it
 * (`[Debug cache ID: <id>]`).
 */
export interface VideoDebugLog {
  request: string;
  headers: string;
}

/** The log to keep for this request, when it asks for one; read before anything changes the body. */
export function videoDebugLog(input: EndpointRequest, override: boolean): VideoDebugLog | undefined {
  if (!override && String(input.query.debug ?? '').toLowerCase() !== 'true') return undefined;
  return { request: JSON.stringify(input.body ?? null), headers: JSON.stringify(input.headers) };
}

const MARKUP = /[<>]/g;

function logXml(log: VideoDebugLog, response: string): string {
  const part = (name: string, text: string) => `<${name}>${text.replace(MARKUP, '')}</${name}>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Log>${part('Request', log.request)}${part('Headers', log.headers)}${part('Response', response)}</Log>`;
}

/** Caches the log and names its id in the answer; an answer is never failed by its debug log. */
export async function withDebugLog(answer: EndpointResponse, log: VideoDebugLog, cache: CacheClient, ttlSeconds: number, deadline: number): Promise<EndpointResponse> {
  const body = answer.body as Record<string, any> | string;
  const failed = answer.status !== 200 || typeof body === 'string';
  const response = failed ? `\nErrors:\n${errorsOf(String(body))}` : JSON.stringify(body.ext ?? {});
  const [id] = await cache.put([{ type: 'xml', value: logXml(log, response), ttlseconds: ttlSeconds }], deadline);
  if (id === undefined) return answer;
  if (failed) return { ...answer, body: `${String(body)}Invalid request: [Debug cache ID: ${id}]\n` };
  if (!Array.isArray(body.adPods) || !body.adPods.some((pod: Record<string, any>) => Array.isArray(pod.targeting) && pod.targeting.length > 0)) {
    return { ...answer, body: { ...body, adPods: [{ targeting: [{ hb_cache_id: id }] }], ext: withLogId(body.ext, id) } };
  }
  return { ...answer, body: { ...body, ext: withLogId(body.ext, id) } };
}

/** The messages of an error answer, one a line, as Prebid Server's debug log lists its errors (no `Invalid request:`). */
function errorsOf(text: string): string {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^Invalid request: /, ''))
    .join('\n');
}

function withLogId(ext: Record<string, any> | undefined, id: string): Record<string, any> {
  return { ...ext, debug: { ...ext?.debug, logcacheid: id } };
}
