import { createGunzip } from 'node:zlib';
import { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { ErrorCode } from '../api/index.js';
import { describeJsonError } from './json-error.js';

/** An error the HTTP edge turns into a 4xx with a plain-text body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    /** Headers the answer carries (a 405's `Allow`). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}

/** Reads a stream to its end, failing as soon as it passes `maxBytes` (events, not an async iterator: hot path). */
function collect(stream: Readable, maxBytes: number, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        // A decompressor is stopped outright (a zip bomb must not keep inflating); the request itself is drained
        // instead, so its socket survives to carry the 413.
        if (stream instanceof IncomingMessage) {
          stream.removeAllListeners('data');
          stream.resume();
        } else {
          stream.destroy();
        }
        reject(new HttpError(413, `Invalid request: ${what} is larger than the ${maxBytes}-byte limit`, ErrorCode.RequestTooLarge));
        return;
      }
      chunks.push(chunk);
    });
    stream.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

/**
 * Reads a request body with the size limit applied after decompression: a body is gzip when it says
 * `Content-Encoding: gzip`, or when Prebid.js adds `?gzip=1` (`gzipParam`) without the header.
 */
export async function readBody(req: IncomingMessage, gzipParam: boolean, maxBytes: number): Promise<Buffer> {
  const encodingHeader = req.headers['content-encoding'];
  const encoding = encodingHeader ? encodingHeader.toLowerCase() : '';
  const gzip = encoding === 'gzip' || gzipParam;
  if (encoding && encoding !== 'gzip' && encoding !== 'identity') {
    throw new HttpError(415, `Invalid request: Content-Encoding "${encoding}" is not supported; send identity or gzip`, ErrorCode.RequestMalformed);
  }
  const declared = Number(req.headers['content-length']);
  if (!gzip && Number.isFinite(declared) && declared > maxBytes) {
    throw new HttpError(413, `Invalid request: request body is larger than the ${maxBytes}-byte limit`, ErrorCode.RequestTooLarge);
  }
  if (!gzip) return collect(req, maxBytes, 'request body');
  const gunzip = createGunzip();
  req.pipe(gunzip);
  req.on('error', (err) => gunzip.destroy(err));
  try {
    return await collect(gunzip, maxBytes, 'decompressed request body');
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(400, `Invalid request: request body is not valid gzip: ${(err as Error).message}`, ErrorCode.RequestMalformed);
  }
}

export const DEFAULT_MAX_JSON_DEPTH = 64;

/**
 * Whether the JSON text opens more than `maxDepth` arrays and objects inside each other: one pass over the body's
 * bytes, before parsing, so a body nested thousands deep never reaches code that walks it recursively (a deep clone,
 * a merge). Brackets inside strings do not count; the text need not be valid (the parser judges that next). The
 * bytes, not the decoded text: every byte it looks for is ASCII, which UTF-8 never uses inside a longer character.
 */
export function nestsDeeperThan(bytes: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  const length = bytes.length;
  for (let i = 0; i < length; i++) {
    const byte = bytes[i]!;
    if (byte === 34 /* " */) {
      for (i++; i < length; i++) {
        const inString = bytes[i]!;
        if (inString === 92 /* \ */) i++;
        else if (inString === 34) break;
      }
    } else if (byte === 123 /* { */ || byte === 91 /* [ */) {
      if (++depth > maxDepth) return true;
    } else if (byte === 125 /* } */ || byte === 93 /* ] */) depth--;
  }
  return false;
}

/**
 * Parses a JSON object body; anything else is a 400 that says what was wrong, in the decoder's words Prebid Server
 * clients match on (`expect { or n, but found [`) followed by where (offset, line, column) and how to fix it. A `null`
 * body decodes, as in Prebid Server, to a request without an id.
 */
export function parseJsonObject(raw: Buffer, maxDepth = DEFAULT_MAX_JSON_DEPTH): Record<string, unknown> {
  if (raw.length === 0) throw new HttpError(400, 'Invalid request: request body is empty; send an OpenRTB BidRequest as JSON', ErrorCode.RequestMalformed);
  if (nestsDeeperThan(raw, maxDepth)) {
    throw new HttpError(400, `Invalid request: JSON nests deeper than the ${maxDepth}-level limit (server.maxJsonDepth)`, ErrorCode.RequestTooDeep);
  }
  const text = raw.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const where = describeJsonError(text, (err as Error).message);
    throw new HttpError(400, `Invalid request: ${where} (request body is not valid JSON)`, ErrorCode.RequestMalformed);
  }
  if (value === null) {
    throw new HttpError(400, 'Invalid request: request missing required field: "id" (the request body is null; send a JSON object)', ErrorCode.RequestMalformed);
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    const found = Array.isArray(value) ? '[' : typeof value === 'string' ? '"' : text.trimStart()[0];
    throw new HttpError(400, `Invalid request: expect { or n, but found ${found} (request body must be a JSON object)`, ErrorCode.RequestMalformed);
  }
  return value as Record<string, unknown>;
}
