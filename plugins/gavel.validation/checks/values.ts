/** Small readers for untrusted JSON: every check runs on whatever the client sent. */
import { isJsonObject, type JsonObject } from '../../../core/api/index.js';

export type { JsonObject };

/** JSON `null` counts as absent, as it does for OpenRTB decoders. */
export function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/**
 * OpenRTB sizes, bitrates and counters are non-negative integers. The wording "must be a positive number" (although
 * 0 is accepted) is the one Prebid Server clients already see, so it is kept.
 */
export function nonNegativeIntegerError(value: unknown, path: string): string | undefined {
  if (!isPresent(value)) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) return `${path} must be an integer`;
  return value < 0 ? `${path} must be a positive number` : undefined;
}

/** The first of `fields` of `object` that is present but not a non-negative integer, if any. */
export function firstNonNegativeIntegerViolation(object: JsonObject, fields: readonly string[]): string | undefined {
  for (const field of fields) {
    const value = object[field];
    if (isPresent(value) && !(typeof value === 'number' && Number.isInteger(value) && value >= 0)) return field;
  }
  return undefined;
}

/** The error of the first of `fields` of `object` (at `path`) that is not a non-negative integer. */
export function nonNegativeIntegerFieldsError(object: JsonObject, fields: readonly string[], path: string): string | undefined {
  const field = firstNonNegativeIntegerViolation(object, fields);
  return field === undefined ? undefined : nonNegativeIntegerError(object[field], `${path}.${field}`);
}

export type JsonKind = 'string' | 'object' | 'array' | 'number' | 'boolean';

const KIND_NOUN: Record<JsonKind, string> = {
  string: 'a string', object: 'an object', array: 'an array', number: 'a number', boolean: 'a boolean',
};

/**
 * How a Go JSON decoder words a type mismatch. Clients written against Prebid Server match on the start of these
 * lines, so type errors inside `ext` objects lead with them and follow with our own sentence.
 */
const DECODER_EXPECTATION: Record<JsonKind, string> = {
  string: 'expects " or n', object: 'expect { or n', array: 'expect [ or n', number: 'expects number or n',
  boolean: 'expects t, f or n',
};

/** Whether a JSON value is of this kind (checked before a message is spelled: paths cost only on failure). */
export function hasKind(value: unknown, kind: JsonKind): boolean {
  switch (kind) {
    case 'object': return isJsonObject(value);
    case 'array': return Array.isArray(value);
    default: return typeof value === kind;
  }
}

/** A decoder context for an ext Prebid Server decodes where it reports its decoder's words alone (site, app, device). */
export const DECODER_WORDS_ALONE = '';

/**
 * A present value of the wrong JSON kind: `request.user.ext.consent must be a string`, or, when a decoder context
 * is given, `req.user.ext is invalid: expects " or n, but found 1 (request.user.ext.consent must be a string)`
 * (with DECODER_WORDS_ALONE, `expects " or n, but found 1 (...)`).
 */
export function kindError(value: unknown, kind: JsonKind, path: string, decoderContext?: string): string | undefined {
  if (!isPresent(value) || hasKind(value, kind)) return undefined;
  const sentence = `${path} must be ${KIND_NOUN[kind]}`;
  if (decoderContext === undefined) return sentence;
  const found = JSON.stringify(value)?.charAt(0) ?? '?';
  const words = `${DECODER_EXPECTATION[kind]}, but found ${found} (${sentence})`;
  return decoderContext === DECODER_WORDS_ALONE ? words : `${decoderContext}: ${words}`;
}

/** kindError for `object[field]`, spelling the field's path (`<objectPath>.<field>`) only when there is an error. */
export function fieldKindError(
  object: JsonObject, field: string, kind: JsonKind, objectPath: string, decoderContext?: string,
): string | undefined {
  const value = object[field];
  if (!isPresent(value) || hasKind(value, kind)) return undefined;
  return kindError(value, kind, `${objectPath}.${field}`, decoderContext);
}
