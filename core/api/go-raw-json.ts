/**
 * JSON read with the text it was written in. Go keeps some values as their bytes (`json.RawMessage`) and reads
 * numbers from their digits, so `1.50`, `2e1` or `"caf\u00e9"` come out of a Go adapter as they went in, where
 * `JSON.parse` then `JSON.stringify` would write `1.5`, `20` and `"café"`. Adapters that pass such values on, or check
 * a number as json-iterator does, read the markup with `parseJsonText` and write it back with `goCompactJson`.
 */

/** A JSON value with its text (no surrounding whitespace); objects keep their members in order, duplicates too. */
export type JsonText =
  | { kind: 'object'; text: string; members: { key: string; value: JsonText }[] }
  | { kind: 'array'; text: string; items: JsonText[] }
  | { kind: 'string'; text: string; value: string }
  | { kind: 'number' | 'true' | 'false' | 'null'; text: string };

/** The value and its text, or undefined when the text is not one JSON value (as `JSON.parse` judges it). */
export function parseJsonText(text: string): JsonText | undefined {
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  return new JsonTextReader(text).value();
}

/**
 * What Go's `json.Marshal` writes for a `json.RawMessage` holding this text: compacted (whitespace between tokens
 * dropped) and HTML-safe (`<`, `>`, `&`, U+2028 and U+2029 as `\u` escapes), every other character, escape and number
 * as written. The text must be valid JSON (`parseJsonText`).
 */
export function goCompactJson(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (!inString) {
      if (char === ' ' || char === '\t' || char === '\n' || char === '\r') continue;
      if (char === '"') inString = true;
      out += char;
      continue;
    }
    if (char === '\\') {
      out += char + text[++i]!;
      continue;
    }
    if (char === '"') inString = false;
    if (char === '<' || char === '>' || char === '&' || char === '\u2028' || char === '\u2029') out += `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return out;
}

/** Member names as json-iterator matches them to struct fields: equal but for the case of ASCII letters. */
export function goFieldNameMatches(key: string, jsonName: string): boolean {
  return asciiLowerCase(key) === asciiLowerCase(jsonName);
}

function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Reads text already known to be valid JSON. */
class JsonTextReader {
  private at = 0;

  constructor(private readonly text: string) {}

  value(): JsonText {
    this.skipSpace();
    const start = this.at;
    const char = this.text[this.at]!;
    if (char === '{') {
      this.at++;
      const members: { key: string; value: JsonText }[] = [];
      this.skipSpace();
      while (this.text[this.at] !== '}') {
        this.skipSpace();
        const key = this.string();
        this.skipSpace();
        this.at++; // the colon
        members.push({ key, value: this.value() });
        this.skipSpace();
        if (this.text[this.at] === ',') this.at++;
      }
      this.at++;
      return { kind: 'object', text: this.text.slice(start, this.at), members };
    }
    if (char === '[') {
      this.at++;
      const items: JsonText[] = [];
      this.skipSpace();
      while (this.text[this.at] !== ']') {
        items.push(this.value());
        this.skipSpace();
        if (this.text[this.at] === ',') this.at++;
        this.skipSpace();
      }
      this.at++;
      return { kind: 'array', text: this.text.slice(start, this.at), items };
    }
    if (char === '"') {
      const value = this.string();
      return { kind: 'string', text: this.text.slice(start, this.at), value };
    }
    for (const literal of ['true', 'false', 'null'] as const) {
      if (this.text.startsWith(literal, this.at)) {
        this.at += literal.length;
        return { kind: literal, text: literal };
      }
    }
    NUMBER.lastIndex = this.at;
    const number = NUMBER.exec(this.text)![0];
    this.at += number.length;
    return { kind: 'number', text: number };
  }

  private string(): string {
    const start = this.at;
    this.at++;
    while (this.text[this.at] !== '"') this.at += this.text[this.at] === '\\' ? 2 : 1;
    this.at++;
    return JSON.parse(this.text.slice(start, this.at)) as string;
  }

  private skipSpace(): void {
    while (' \t\n\r'.includes(this.text[this.at] ?? 'x')) this.at++;
  }
}
