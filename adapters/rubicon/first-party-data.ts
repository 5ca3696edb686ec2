/**
 * Rubicon's XAPI takes first-party data as targeting maps (`imp.ext.rp.target`, `user.ext.rp.target`,
 * `site.ext.rp.target`) whose values are lists of strings. These helpers turn OpenRTB first-party data into them.
 */
import { isJsonObject, type JsonObject } from '../../core/api/index.js';

/**
 * Copies the attributes of a first-party data object into a targeting map. Strings, whole numbers and booleans
 * become one-element string lists; lists of strings are kept and lists of booleans are stringified. Anything else
 * (fractions, objects, mixed or numeric lists) has no targeting form and is left out.
 */
export function addFirstPartyAttributes(source: unknown, target: JsonObject): void {
  if (!isJsonObject(source)) return;
  for (const [key, value] of Object.entries(source)) {
    const converted = toTargetingValues(value);
    if (converted !== undefined) target[key] = converted;
  }
}

function toTargetingValues(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number') return Number.isInteger(value) ? [String(value)] : undefined;
  if (typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) {
    if (value.every((item) => typeof item === 'string')) return [...value] as string[];
    if (value.every((item) => typeof item === 'boolean')) return value.map(String);
  }
  return undefined;
}

/**
 * Segment ids of the `data` entries whose `ext.segtax` is one of the given IAB taxonomies. The taxonomy must be a
 * number: a segtax written as a string or a list names no taxonomy.
 */
export function iabSegmentIds(data: unknown, taxonomies: readonly number[]): string[] {
  if (!Array.isArray(data)) return [];
  const ids: string[] = [];
  for (const entry of data) {
    if (!isJsonObject(entry) || !isJsonObject(entry.ext)) continue;
    const segtax = entry.ext.segtax;
    if (typeof segtax !== 'number' || !taxonomies.includes(segtax) || !Array.isArray(entry.segment)) continue;
    for (const segment of entry.segment) {
      if (isJsonObject(segment) && typeof segment.id === 'string' && segment.id !== '') ids.push(segment.id);
    }
  }
  return ids;
}

/** Taxonomies Magnite reads from `site.content.data` / `app.content.data` (content taxonomies). */
export const CONTENT_TAXONOMIES = [1, 2, 5, 6] as const;
/** Taxonomies Magnite reads from `user.data` (audience taxonomy). */
export const AUDIENCE_TAXONOMIES = [4] as const;
