import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PluginLogger } from '../api/index.js';

/** The header a request id comes in and goes back out in. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** An id a client or proxy sent is kept when it is 1-128 visible ASCII characters; anything else is replaced. */
const ACCEPTABLE_ID = /^[\x21-\x7e]{1,128}$/;

/** The request's id: the one it came with (a proxy's, so logs join up across hops) or a fresh one. */
export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers[REQUEST_ID_HEADER];
  const id = Array.isArray(sent) ? sent[0] : sent;
  return id !== undefined && ACCEPTABLE_ID.test(id) ? id : randomUUID();
}

type Level = keyof PluginLogger;
type ChildCapable = PluginLogger & { child?(bindings: Record<string, unknown>): PluginLogger };

/**
 * A request's logger: every line it writes carries `requestId`. The child logger is made on the first line only,
 * so a request that logs nothing (nearly all of them) costs one small object.
 */
export class RequestLogger implements PluginLogger {
  private bound: PluginLogger | undefined;

  constructor(
    private readonly base: PluginLogger,
    readonly requestId: string,
  ) {}

  debug(obj: object | string, msg?: string): void {
    this.write('debug', obj, msg);
  }

  info(obj: object | string, msg?: string): void {
    this.write('info', obj, msg);
  }

  warn(obj: object | string, msg?: string): void {
    this.write('warn', obj, msg);
  }

  error(obj: object | string, msg?: string): void {
    this.write('error', obj, msg);
  }

  private write(level: Level, obj: object | string, msg: string | undefined): void {
    const target = (this.bound ??= bind(this.base, this.requestId));
    if (msg === undefined) target[level](obj);
    else target[level](obj, msg);
  }
}

function bind(base: ChildCapable, requestId: string): PluginLogger {
  if (typeof base.child === 'function') return base.child({ requestId });
  // A logger without children (a test's recorder): the id goes into each line's object.
  const merged = (level: Level) => (obj: object | string, msg?: string) =>
    typeof obj === 'string' ? base[level]({ requestId }, obj) : base[level]({ ...obj, requestId }, msg);
  return { debug: merged('debug'), info: merged('info'), warn: merged('warn'), error: merged('error') };
}

/** What an endpoint adds to its request's access line once it knows: the account and the bidders it called. */
export interface AccessNote {
  account?: string;
  bidders?: string[];
}

/** The host's access-log settings (`logging.accessLog`); a reload changes them in place. */
export interface AccessLogSettings {
  enabled: boolean;
  sampleRate: number;
}

export interface AccessLog {
  settings: AccessLogSettings;
  /** Writes at info whatever `logging.level` says (but not when logging is off). */
  logger: PluginLogger;
}

/**
 * One line per request: method, path, route, status, duration, account, bidders called, bytes in and out, request
 * id. Sampled at `sampleRate`, except answers of 500 and above, which are always written.
 */
export function writeAccessLine(
  log: AccessLog,
  req: IncomingMessage,
  res: ServerResponse,
  line: { requestId: string; path: string; route: string; startedAt: number; note: AccessNote | undefined },
): void {
  const status = res.statusCode;
  if (status < 500 && log.settings.sampleRate < 1 && Math.random() >= log.settings.sampleRate) return;
  log.logger.info(
    {
      requestId: line.requestId,
      method: req.method,
      path: line.path,
      route: line.route,
      status,
      durationMs: Math.round((performance.now() - line.startedAt) * 10) / 10,
      account: line.note?.account || undefined,
      bidders: line.note?.bidders,
      bytesIn: Number(req.headers['content-length']) || 0,
      bytesOut: Number(res.getHeader('content-length')) || 0,
    },
    'access',
  );
}
