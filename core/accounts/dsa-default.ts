import { fieldIgnoringCase, isJsonObject } from '../api/index.js';

export type DsaDefault = { value: Record<string, unknown> | undefined } | { error: string };

/**
 * An account's `privacy.dsa.default` (a JSON text) as Prebid Server's UnpackDSADefault decodes it into its
 * `openrtb_ext.ExtRegsDSA`: members matched ignoring case, only `dsarequired`, `pubrender`, `datatopub` (int8) and
 * `transparency` (each entry's `domain` when not empty, `dsaparams` when not empty) kept, as the struct writes them back.
 * `null` (or an empty text) is no default. A text that is not such an object is the error: a stored account holding it
 * is malformed, and host defaults holding it do not boot.
 */
export function unpackDsaDefault(text: string): DsaDefault {
  if (text === '') return { value: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: 'not valid JSON' };
  }
  if (parsed === null) return { value: undefined };
  if (!isJsonObject(parsed)) return { error: 'not a JSON object' };
  const out: Record<string, unknown> = {};
  for (const key of ['dsarequired', 'pubrender', 'datatopub'] as const) {
    const value = fieldIgnoringCase(parsed, key);
    if (value === undefined || value === null) continue;
    if (!Number.isInteger(value) || (value as number) < -128 || (value as number) > 127) return { error: `${key} must be an integer from -128 to 127` };
    out[key] = value;
  }
  const transparency = fieldIgnoringCase(parsed, 'transparency');
  if (transparency !== undefined && transparency !== null) {
    if (!Array.isArray(transparency)) return { error: 'transparency must be an array' };
    const entries: Record<string, unknown>[] = [];
    for (const entry of transparency) {
      if (entry === null) {
        entries.push({});
        continue;
      }
      if (!isJsonObject(entry)) return { error: 'transparency entries must be objects' };
      const kept: Record<string, unknown> = {};
      const domain = fieldIgnoringCase(entry, 'domain');
      if (domain !== undefined && domain !== null) {
        if (typeof domain !== 'string') return { error: 'transparency domain must be a string' };
        if (domain !== '') kept.domain = domain;
      }
      const params = fieldIgnoringCase(entry, 'dsaparams');
      if (params !== undefined && params !== null) {
        if (!Array.isArray(params) || !params.every((param) => Number.isInteger(param))) return { error: 'transparency dsaparams must be integers' };
        if (params.length > 0) kept.dsaparams = params;
      }
      entries.push(kept);
    }
    if (entries.length > 0) out.transparency = entries;
  }
  return { value: out };
}
