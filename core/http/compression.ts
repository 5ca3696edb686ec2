import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** `compression.response`: which encodings the edge may answer in, and from what size. */
export interface CompressionSettings {
  enableGzip: boolean;
  enableBrotli: boolean;
  minBytes: number;
}

/** Encodes a body about to be written, or returns it as it is; sets `Content-Encoding` and `Vary` when it applies. */
export type ResponseCompressor = (req: IncomingMessage, res: ServerResponse, body: string | Buffer) => string | Buffer;

/** Content types worth compressing: JSON, text, HTML, XML (VAST), JavaScript. Images and the like are not. */
const COMPRESSIBLE = /^(?:application\/(?:json|xml|javascript|[\w.+-]+\+(?:json|xml))|text\/)/i;

/** Brotli's quality 4 is near gzip's speed with a smaller result; its default (11) is far too slow for a live answer. */
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

/** Whether `Accept-Encoding` accepts `coding` (by name or `*`), i.e. lists it without `q=0`. */
export function accepts(header: string | undefined, coding: string): boolean {
  if (!header) return false;
  let wildcard = false;
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';');
    const token = name.trim().toLowerCase();
    if (token !== coding && token !== '*') continue;
    const q = params.map((param) => param.trim().toLowerCase()).find((param) => param.startsWith('q='));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (token === coding) return allowed;
    wildcard = allowed;
  }
  return wildcard;
}

/**
 * Adds `field` to the answer's `Vary`, keeping what is there: CORS has set `Vary: Origin` on every answer, and a
 * shared cache that lost it would hand one origin's `Access-Control-Allow-Origin` to another.
 */
function addVary(res: ServerResponse, field: string): void {
  const current = res.getHeader('vary');
  const fields = current === undefined ? [] : String(current).split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (fields.some((name) => name === '*' || name.toLowerCase() === field.toLowerCase())) return;
  res.setHeader('vary', [...fields, field].join(', '));
}

/**
 * The edge's response compression, as Prebid Server's `enable_gzip` does it, made once at boot; undefined when both
 * encodings are off (the edge then does nothing per answer). An answer is compressed when the client accepts the
 * encoding, its type is text-like, it is at least `minBytes`, and the handler did not encode it already. Compression
 * is synchronous: the answers are a few kilobytes, where zlib's thread-pool round trip costs more than the work.
 */
export function responseCompressor(settings: CompressionSettings | undefined): ResponseCompressor | undefined {
  if (!settings || (!settings.enableGzip && !settings.enableBrotli)) return undefined;
  const { enableGzip, enableBrotli, minBytes } = settings;
  return (req, res, body) => {
    if (Buffer.byteLength(body) < minBytes || res.hasHeader('content-encoding')) return body;
    const type = res.getHeader('content-type');
    if (typeof type !== 'string' || !COMPRESSIBLE.test(type)) return body;
    addVary(res, 'Accept-Encoding');
    const header = req.headers['accept-encoding'];
    if (enableBrotli && accepts(header, 'br')) {
      res.setHeader('content-encoding', 'br');
      return brotliCompressSync(body, BROTLI_OPTIONS);
    }
    if (enableGzip && accepts(header, 'gzip')) {
      res.setHeader('content-encoding', 'gzip');
      return gzipSync(body);
    }
    return body;
  };
}
