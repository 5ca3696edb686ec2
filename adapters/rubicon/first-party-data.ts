/**
 * Rubicon's XAPI takes first-party data as targeting maps (`imp.ext.rp.target`, `user.ext.rp.target`,
 * `site.ext.rp.target`) whose values are lists of strings. These helpers turn OpenRTB first-party data into them, as
 * Prebid Server's adapter does.
 */
import { goMap, isJsonObject, type JsonObject } from '../../core/api/index.js';

/**
 * A targeting map to start from: absent or `null` is an empty map, an object a copy of itself; anything else is
 * an error (Go cannot decode it into a map). For a value `jsonparser.Get` found, pass `goMapFromJsonparser`'s map.
 */
export function targetingMap(value: unknown): JsonObject {
  return { ...goMap(value ?? null, []) };
}

/**
 * Copies the attributes of a first-party data object into a targeting map. Strings, whole numbers and booleans
 * become one-element string lists; lists of strings are kept and lists of booleans are stringified (an empty list
 * becomes `null`, as it does in Prebid Server). Anything else (fractions, objects, `null`, mixed or numeric lists)
 * has no targeting form and is left out. A source that is not an object is an error.
 */
export function addFirstPartyAttributes(source: unknown, target: JsonObject): void {
  for (const [key, value] of Object.entries(targetingMap(source))) {
    const converted = toTargetingValues(value);
    if (converted !== undefined) target[key] = converted;
  }
}

function toTargetingValues(value: unknown): string[] | null | undefined {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? [String(value)] : undefined;
  if (typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) {
    if (value.length === 0) return null;
    if (value.every((item) => typeof item === 'string')) return [...value] as string[];
    if (value.every((item) => typeof item === 'boolean')) return value.map(String);
  }
  return undefined;
}

/**
 * Segment ids of the `data` entries whose `ext.segtax` is one of the given IAB taxonomies. The taxonomy must be an
 * integer: a segtax written as a string or a list names none (Go cannot decode it).
 */
export function iabSegmentIds(data: unknown, taxonomies: readonly number[]): string[] {
  if (!Array.isArray(data)) return [];
  const ids: string[] = [];
  for (const entry of data) {
    if (!isJsonObject(entry) || entry.ext === undefined || entry.ext === null || !isJsonObject(entry.ext)) continue;
    const segtax = entry.ext.segtax ?? 0;
    if (!Number.isInteger(segtax) || !taxonomies.includes(segtax as number)) continue;
    for (const segment of Array.isArray(entry.segment) ? entry.segment : []) {
      ids.push(isJsonObject(segment) && typeof segment.id === 'string' ? segment.id : '');
    }
  }
  return ids;
}

/** Taxonomies Magnite reads from `site.content.data` (content taxonomies). */
export const CONTENT_TAXONOMIES = [1, 2, 5, 6] as const;
/** Taxonomies Magnite reads from `user.data` (audience taxonomy). */
export const AUDIENCE_TAXONOMIES = [4] as const;
