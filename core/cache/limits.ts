import { ErrorCode, GavelError } from '../api/index.js';
import type { CacheEntry, CacheValueType } from './store.js';

/**
 * The limits every Gavel bid cache enforces: the HTTP cache endpoint, the embedded client and the remote client
 * (client-side, so an oversized value is dropped before it costs a network call). Host config: `cache.limits`.
 */
export interface CacheLimits {
  /** Largest value, in UTF-8 bytes of its stored text (JSON text for `json`, the string itself for `xml`). */
  maxValueBytes: number;
  /** Most puts in one `POST /cache` call. */
  maxPutsPerRequest: number;
  /** Longest time a value lives; larger TTLs are cut to this. */
  maxTtlSeconds: number;
  /** TTL of a put that names none, or names 0. */
  defaultTtlSeconds: number;
}

export const DEFAULT_CACHE_LIMITS: Readonly<CacheLimits> = Object.freeze({
  maxValueBytes: 10 * 1024,
  maxPutsPerRequest: 10,
  maxTtlSeconds: 3600,
  defaultTtlSeconds: 3600,
});

/** Builds the limits from host config (`cache.limits`), filling gaps with the defaults; bad values are a boot error. */
export function resolveCacheLimits(overrides: Partial<Record<keyof CacheLimits, unknown>> = {}): CacheLimits {
  const limits = { ...DEFAULT_CACHE_LIMITS };
  for (const name of Object.keys(DEFAULT_CACHE_LIMITS) as Array<keyof CacheLimits>) {
    const value = overrides[name];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
      throw new GavelError(ErrorCode.ConfigInvalid, `cache.limits.${name} must be a positive integer, got ${JSON.stringify(value)}`);
    }
    limits[name] = value;
  }
  if (limits.defaultTtlSeconds > limits.maxTtlSeconds) {
    throw new GavelError(
      ErrorCode.ConfigInvalid,
      `cache.limits.defaultTtlSeconds (${limits.defaultTtlSeconds}) must not exceed cache.limits.maxTtlSeconds (${limits.maxTtlSeconds})`,
    );
  }
  return limits;
}

/**
 * Largest `POST /cache` body worth reading. JSON escaping can make a value's text on the wire longer than the stored
 * value (an XML string full of quotes doubles), so each put is granted twice its value limit plus room for its keys.
 */
export function maxRequestBodyBytes(limits: CacheLimits): number {
  const perPutOverhead = 256;
  const envelopeOverhead = 1024;
  return limits.maxPutsPerRequest * (2 * limits.maxValueBytes + perPutOverhead) + envelopeOverhead;
}

/** A put as the protocol carries it: `{"type":"json"|"xml","value":...,"ttlseconds":N}`. */
export interface CachePut {
  type: CacheValueType;
  value: unknown;
  ttlseconds?: number;
}

export type PutCheck = { ok: true; entry: CacheEntry } | { ok: false; reason: string };

/**
 * Checks one put against the protocol and the limits and turns it into what a store keeps. Reasons name the field
 * (`type must be ...`) so callers can prefix the put's position (`puts[2].`).
 */
export function checkPut(put: unknown, limits: CacheLimits): PutCheck {
  if (typeof put !== 'object' || put === null || Array.isArray(put)) {
    return { ok: false, reason: 'must be an object like {"type":"json","value":...,"ttlseconds":300}' };
  }
  const { type, value, ttlseconds } = put as Record<string, unknown>;
  if (type !== 'json' && type !== 'xml') {
    return { ok: false, reason: `type must be "json" or "xml", got ${describe(type)}` };
  }
  const ttl = resolveTtl(ttlseconds, limits);
  if (typeof ttl === 'string') return { ok: false, reason: ttl };

  if (value === undefined || value === null) return { ok: false, reason: 'value is required' };
  const text = valueText(type, value);
  if (text === undefined) {
    return {
      ok: false,
      reason: type === 'xml' ? `value must be a string of XML for type "xml", got ${describe(value)}` : 'value cannot be written as JSON',
    };
  }
  // UTF-8 takes at most 3 bytes per UTF-16 unit: a text short enough cannot pass the limit, whatever it holds.
  const bytes = text.length * 3 <= limits.maxValueBytes ? 0 : Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxValueBytes) {
    return { ok: false, reason: `value is ${bytes} bytes, larger than the limit of ${limits.maxValueBytes} bytes` };
  }
  return { ok: true, entry: { type, value: text, ttlSeconds: ttl } };
}

/** The TTL a put gets, or the reason it is refused. Fractions round up: stores keep whole seconds. */
function resolveTtl(ttlseconds: unknown, limits: CacheLimits): number | string {
  if (ttlseconds === undefined || ttlseconds === null) return limits.defaultTtlSeconds;
  if (typeof ttlseconds !== 'number' || !Number.isFinite(ttlseconds)) {
    return `ttlseconds must be a number of seconds, got ${describe(ttlseconds)}`;
  }
  if (ttlseconds < 0) return `ttlseconds must not be negative, got ${ttlseconds}`;
  if (ttlseconds === 0) return limits.defaultTtlSeconds;
  return Math.min(Math.ceil(ttlseconds), limits.maxTtlSeconds);
}

/** The text a store keeps: JSON values as JSON text, XML as the string itself. Undefined when there is none. */
function valueText(type: CacheValueType, value: unknown): string | undefined {
  if (type === 'xml') return typeof value === 'string' ? value : undefined;
  try {
    // JSON.stringify yields undefined for functions and throws on cycles and BigInt: neither is a cacheable value.
    return JSON.stringify(value) as string | undefined;
  } catch {
    return undefined;
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (Array.isArray(value)) return 'an array';
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : String(value);
}
