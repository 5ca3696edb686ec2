import { isJsonObject } from '../api/index.js';
/**
 * Applies a JSON merge patch (RFC 7386) to `base` and returns the result. Objects merge member by member, a `null`
 * member removes that member, anything else (arrays included) replaces the base value whole.
 *
 * Neither input is changed. The result may share untouched sub-objects with both inputs, so a caller that will edit
 * the result must own the inputs (resolveStoredRequest copies cached documents first).
 */
export function mergePatch(base: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const result: Record<string, unknown> = isJsonObject(base) ? { ...base } : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[name];
    } else {
      setMember(result, name, mergePatch(Object.hasOwn(result, name) ? result[name] : undefined, value));
    }
  }
  return result;
}

/**
 * Sets an own member even when the name is `__proto__`: JSON.parse creates such members as plain data, and a plain
 * assignment would instead replace the object's prototype.
 */
function setMember(target: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') {
    Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[name] = value;
  }
}
