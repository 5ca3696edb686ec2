import { isJsonObject } from './helpers.js';

/**
 * Prebid Server decodes JSON with json-iterator through `jsonutil.Unmarshal`, and reports what failed with the text
 * `jsonutil.tryExtractErrorMessage` cuts out of json-iterator's error. That error is a chain: each struct field the
 * failing value sits in (`<package>.<Type>.<Field>`, Go's field name, not the JSON key), then the reading operation
 * (`ReadString`, `readObjectStart`...), then the detail. The text PBS reports is the detail alone for a value at the
 * top, else `cannot unmarshal <the last link before the operation>: <detail>`. An adapter whose Go code passes these
 * texts on builds the same chain with these readers, and they cut it the same way.
 */
export class GoDecodeError extends Error {}

/** `jsonutil.tryExtractErrorMessage` on json-iterator's `<links>: <operation>: <detail>` chain. */
export function goDecodeErrorText(links: readonly string[], operation: string, detail: string): string {
  // The parts the extraction splits on: ": "-separated, until a part holds a space (it is then the message).
  const parts = `${[...links, operation].join(': ')}: ${detail}`.split(': ');
  let taken = 1;
  while (taken < parts.length - 1 && !parts[taken]!.includes(' ')) taken++;
  const message = parts.slice(taken).join(': ');
  return taken > 1 ? `cannot unmarshal ${parts[taken - 2]}: ${message}` : message;
}

/** The decoder's text for a value that should have been a JSON object. */
export function goObjectExpected(value: unknown): string {
  return `expect { or n, but found ${goFoundByte(value)}`;
}

/** One field of a Go struct: its Go name, and the error detail for a JSON value it cannot hold (undefined when it can). */
export interface GoField {
  goName: string;
  refuse(value: unknown): string | undefined;
}

/** A Go `string` field's check. */
export const GO_STRING_FIELD = (goName: string): GoField => ({
  goName,
  refuse: (value) => (typeof value === 'string' ? undefined : `expects " or n, but found ${goFoundByte(value)}`),
});

/**
 * An object's members read into a Go struct's fields as json-iterator reads them: keys matched ignoring case, members
 * in the order they come (a later one wins, the first that does not fit stops with `cannot unmarshal <goType>.<Field>:
 * <detail>`), `null` the zero value (no value in the result), members the struct does not have skipped. `fields` is
 * keyed by the lower-case JSON name; the result by the same names.
 */
export function decodeGoFields(object: Record<string, unknown>, goType: string, fields: Readonly<Record<string, GoField>>): { values: Record<string, unknown> } | { error: string } {
  const values: Record<string, unknown> = {};
  for (const key in object) {
    const name = key.toLowerCase();
    // Only the struct's own fields: a member named `constructor` or `toString` is one Go skips.
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (field === undefined) continue;
    const value = object[key];
    if (value === null) {
      delete values[name];
      continue;
    }
    const refused = field.refuse(value);
    if (refused !== undefined) return { error: `cannot unmarshal ${goType}.${field.goName}: ${refused}` };
    values[name] = value;
  }
  return { values };
}

function fail(links: readonly string[], operation: string, detail: string): never {
  throw new GoDecodeError(goDecodeErrorText(links, operation, detail));
}

/** The first byte of a value's JSON, as json-iterator quotes it in "but found ..." (NUL when there is nothing). */
export function goFoundByte(value: unknown): string {
  return value === undefined ? '\u0000' : JSON.stringify(value)[0]!;
}

/**
 * A `map[string]interface{}` decoded from what `jsonparser.Get` found: a string comes without its quotes, so the
 * decoder meets its first character (or nothing, for ""). Absent is an empty map, as Go's nil value is.
 */
export function goMapFromJsonparser(value: unknown): Record<string, unknown> {
  if (typeof value !== 'string') return goMap(value ?? null, []);
  fail([], 'ReadMapCB', `expect { or n, but found ${JSON.stringify(value).slice(1, -1)[0] ?? '\u0000'}`);
}

/** A struct: `null` is the zero value (an empty object here); absent at the top, the decoder had nothing to read. */
export function goStruct(value: unknown, links: readonly string[]): Record<string, unknown> {
  if (value === null || (value === undefined && links.length > 0)) return {};
  if (!isJsonObject(value)) fail(links, 'readObjectStart', `expect { or n, but found ${goFoundByte(value)}`);
  return value;
}

/** A `map[string]...`: as a struct, with the map decoder's operation name. */
export function goMap(value: unknown, links: readonly string[]): Record<string, unknown> {
  if (value === null || (value === undefined && links.length > 0)) return {};
  if (!isJsonObject(value)) fail(links, 'ReadMapCB', `expect { or n, but found ${goFoundByte(value)}`);
  return value;
}

/** A slice; `sliceType` is Go's (`[]string`), which json-iterator names in front of any failure inside. */
export function goSlice(value: unknown, links: readonly string[], sliceType: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail([...links, sliceType], 'decode slice', `expect [ or n, but found ${goFoundByte(value)}`);
  return value;
}

export function goString(value: unknown, links: readonly string[]): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') fail(links, 'ReadString', `expects " or n, but found ${goFoundByte(value)}`);
  return value;
}

/**
 * An `int`. json-iterator reads digits: anything else is an "unexpected character" (the byte it prints is not valid
 * UTF-8, which Go's encoder writes as U+FFFD), and a fraction cannot be an int.
 */
export function goInt(value: unknown, links: readonly string[]): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number') fail(links, 'readUint64', 'unexpected character: \ufffd');
  if (!Number.isInteger(value)) fail(links, 'assertInteger', 'can not decode float as int');
  return value;
}

/**
 * An `int8` (or a named type over it, such as `openrtb_ext.AuctionEnvironmentType`): read as `int`, then a value
 * outside -128..127 overflows (`ReadInt8`), one past uint32 already while its digits are read (`readUint32`).
 */
export function goInt8(value: unknown, links: readonly string[]): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number') fail(links, 'readUint32', 'unexpected character: \ufffd');
  if (!Number.isInteger(value)) fail(links, 'assertInteger', 'can not decode float as int');
  const magnitude = Math.abs(value);
  if (magnitude > 0xffffffff) fail(links, 'readUint32', 'overflow');
  if (value > 127 || value < -128) fail(links, 'ReadInt8', `overflow: ${magnitude}`);
  return value;
}

/**
 * A `json.Number`: json-iterator takes any string as it is (no check that it holds a number), a number's text, `null`
 * as empty; anything else has no number characters to read (`invalid number`). A number comes back in JavaScript's
 * spelling, which is Go's for the integers and plain decimals ids are written in.
 */
export function goNumberText(value: unknown, links: readonly string[]): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value !== 'number') fail(links, 'readNumberAsString', 'invalid number');
  return String(value);
}

/** A `float64`: json-iterator finds no number characters in anything but a number (`invalid number`). */
export function goFloat(value: unknown, links: readonly string[]): number {
  if (value === undefined || value === null) return 0;
  // Its slow path reads the number's characters first, and finds none in anything but a number.
  if (typeof value !== 'number') fail(links, 'readNumberAsString', 'invalid number');
  return value;
}

/** A `bool` or `*bool`: undefined for absent or `null` (the nil pointer). */
export function goBool(value: unknown, links: readonly string[]): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') fail(links, 'ReadBool', `expect t or f, but found ${goFoundByte(value)}`);
  return value;
}

/** A type with its own `UnmarshalJSON`: json-iterator reports the error it returns under `unmarshalerDecoder`. */
export function failInUnmarshaler(links: readonly string[], error: string): never {
  fail(links, 'unmarshalerDecoder', error);
}

/**
 * A Go type as json-iterator decodes it, for reading a value down to its leaves (`decodeGo`). Struct fields carry
 * their whole link (`openrtb_ext.ExtRequestTargeting.IncludeWinners`), spelled once by `goStructType`; a slice names
 * its Go type (`[]request.Asset`); `unmarshal` is a type with its own UnmarshalJSON.
 */
export type GoType =
  | 'string' | 'bool' | 'int' | 'int8' | 'uint16' | 'float64' | 'raw'
  | { struct: Readonly<Record<string, readonly [link: string, type: GoType]>> }
  | { map: GoType }
  | { slice: string; of: GoType }
  | { unmarshal: (value: unknown, links: string[]) => void };

/** A struct type from its fields by JSON name (matched ignoring case, as Go's decoder matches them). */
export function goStructType(goType: string, fields: Readonly<Record<string, readonly [goName: string, type: GoType]>>): GoType {
  return { struct: Object.fromEntries(Object.entries(fields).map(([json, [goName, type]]) => [json.toLowerCase(), [`${goType}.${goName}`, type] as const])) };
}

/**
 * Reads `value` as `type`, throwing a `GoDecodeError` with json-iterator's text (as `jsonutil` cuts it) at the first
 * thing that does not fit; `null` is the zero value. `links` is a stack the readers push to and pop from, so a value
 * that fits copies no chain.
 */
export function decodeGo(value: unknown, type: GoType, links: string[]): void {
  if (value === null) return;
  if (typeof type === 'string') {
    if (type === 'string') goString(value, links);
    else if (type === 'bool') goBool(value, links);
    else if (type === 'int') goInt(value, links);
    else if (type === 'int8') goInt8(value, links);
    else if (type === 'uint16') goUint16(value, links);
    else if (type === 'float64') goFloat(value, links);
    return;
  }
  if ('unmarshal' in type) {
    type.unmarshal(value, links);
  } else if ('struct' in type) {
    const object = goStruct(value, links);
    for (const key in object) {
      const field = Object.hasOwn(object, key) ? type.struct[key.toLowerCase()] : undefined;
      if (field === undefined) continue;
      links.push(field[0]);
      decodeGo(object[key], field[1], links);
      links.pop();
    }
  } else if ('map' in type) {
    const object = goMap(value, links);
    for (const key in object) if (Object.hasOwn(object, key)) decodeGo(object[key], type.map, links);
  } else {
    const items = goSlice(value, links, type.slice);
    if (items.length === 0) return;
    links.push(type.slice);
    for (const item of items) decodeGo(item, type.of, links);
    links.pop();
  }
}

/** `decodeGo` from the top of a value: the decoder's text, or undefined when it fits. */
export function goDecodeProblem(value: unknown, type: GoType): string | undefined {
  try {
    decodeGo(value, type, []);
    return undefined;
  } catch (err) {
    if (err instanceof GoDecodeError) return err.message;
    throw err;
  }
}

/** A `uint16`: read as an unsigned number, so a sign is an unexpected character; past 65535 it overflows. */
export function goUint16(value: unknown, links: readonly string[]): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && value < 0) fail(links, 'readUint32', 'unexpected character: \ufffd');
  const read = goInt(value, links);
  if (read > 0xffffffff) fail(links, 'readUint32', 'overflow');
  if (read > 0xffff) fail(links, 'ReadUint16', `overflow: ${read}`);
  return read;
}
