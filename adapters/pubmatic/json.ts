import { isJsonObject, type JsonObject } from '../../core/api/index.js';

/** What Go's `strconv.ParseFloat` reads (decimal forms), as a number; undefined otherwise. */
export function goFloatText(text: string): number | undefined {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * Finds the raw text of a top-level member of a JSON object without re-serialising it, so escapes and spacing
 * inside stay byte for byte as the bidder wrote them. Returns undefined when `text` is not an object with that key.
 */
export function rawMemberText(text: string, key: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(parsed) || !(key in parsed)) return undefined;

  // The text is valid JSON, so a scan that tracks strings and nesting depth finds each member's exact bounds.
  let depth = 0;
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '"') {
      const end = endOfString(text, index);
      if (depth === 1 && JSON.parse(text.slice(index, end)) === key && text.slice(end).trimStart().startsWith(':')) {
        const valueStart = text.indexOf(':', end) + 1;
        // Duplicate keys: Prebid Server reads the member with jsonparser.Get, which stops at the first one.
        return text.slice(valueStart, endOfValue(text, valueStart)).trim();
      }
      index = end;
      continue;
    }
    if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') depth--;
    index++;
  }
  return undefined;
}

/** Index just past the string literal that starts at `start`. */
function endOfString(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
  return index + 1;
}

/** Index just past the JSON value that starts at or after `start` (skipping leading whitespace). */
function endOfValue(text: string, start: number): number {
  let index = start;
  while (/\s/.test(text[index] ?? '')) index++;
  if (text[index] === '"') return endOfString(text, index);
  let depth = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '"') {
      index = endOfString(text, index);
      continue;
    }
    if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      if (depth === 0) return index;
      depth--;
      if (depth === 0) return index + 1;
    } else if (char === ',' && depth === 0) return index;
    index++;
  }
  return index;
}
