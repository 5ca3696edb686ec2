/**
 * Where and why a JSON text fails to parse, for the 400 a malformed body gets. JSON.parse does not always say where
 * (V8 gives no position for an unexpected `]` in an array), so on that rare path the text is scanned again. The
 * wording follows the decoder Prebid Server uses (`expect { or n, but found ]`), which its clients match on, then adds
 * the offset, line and column.
 */

interface Failure {
  offset: number;
  message: string;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/** What the decoder expects where a value of the kind the previous element had should start. */
function expectation(previous: string | undefined): string {
  switch (previous) {
    case '{':
      return 'expect { or n';
    case '[':
      return 'expect [ or n';
    case '"':
      return 'expects " or n';
    default:
      return 'expect a value';
  }
}

/** Scans `text` as JSON and returns its first error, or undefined when it is valid JSON. */
export function locateJsonError(text: string): Failure | undefined {
  let at = 0;
  const skip = (): void => {
    while (at < text.length && WHITESPACE.has(text[at]!)) at++;
  };
  const found = (): string => (at < text.length ? text[at]! : 'end of input');
  const fail = (message: string): never => {
    throw { offset: at, message } satisfies Failure;
  };

  const value = (expected: string | undefined): void => {
    skip();
    const char = text[at];
    if (char === '{') return object();
    if (char === '[') return array();
    if (char === '"') return string();
    if (char === 't' || char === 'f' || char === 'n') return literal();
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return number();
    fail(`${expectation(expected)}, but found ${found()}`);
  };
  const object = (): void => {
    at++;
    skip();
    if (text[at] === '}') {
      at++;
      return;
    }
    for (;;) {
      skip();
      if (text[at] !== '"') fail(`expects " after { or ,, but found ${found()}`);
      string();
      skip();
      if (text[at] !== ':') fail(`expect : after object field, but found ${found()}`);
      at++;
      value(undefined);
      skip();
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === '}') {
        at++;
        return;
      }
      fail(`expect , or } after object field, but found ${found()}`);
    }
  };
  const array = (): void => {
    at++;
    skip();
    if (text[at] === ']') {
      at++;
      return;
    }
    let previous: string | undefined;
    for (;;) {
      skip();
      const start = text[at];
      value(previous);
      previous = start === '{' || start === '[' || start === '"' ? start : undefined;
      skip();
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === ']') {
        at++;
        return;
      }
      fail(`expect , or ] after array element, but found ${found()}`);
    }
  };
  const string = (): void => {
    at++;
    while (at < text.length && text[at] !== '"') {
      if (text[at] === '\\') at++;
      else if (text.charCodeAt(at) < 0x20) fail('control character in a string');
      at++;
    }
    if (at >= text.length) fail('unterminated string');
    at++;
  };
  const literal = (): void => {
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return;
      }
    }
    fail(`invalid literal, found ${found()}`);
  };
  const number = (): void => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (!match) fail(`invalid number, found ${found()}`);
    at += match![0].length;
  };

  try {
    value(undefined);
    skip();
    if (at < text.length) fail(`unexpected ${found()} after the JSON value`);
    return undefined;
  } catch (err) {
    if (typeof err === 'object' && err !== null && 'offset' in err) return err as Failure;
    // Nesting deeper than the stack (JSON.parse itself copes): no position, the parser's own message stands.
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

/** `<why> at offset N (line L, column C)`: the line a 400 gives for a malformed JSON body. */
export function describeJsonError(text: string, fallback: string): string {
  const failure = locateJsonError(text);
  if (!failure) return fallback;
  const before = text.slice(0, failure.offset);
  const line = before.split('\n').length;
  const column = failure.offset - before.lastIndexOf('\n');
  return `${failure.message} at offset ${failure.offset} (line ${line}, column ${column})`;
}
