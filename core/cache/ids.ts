import { randomFillSync } from 'node:crypto';

/** Random bytes drawn at once: one call to the CSPRNG serves this many ids. */
const IDS_PER_DRAW = 256;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const DASH = 0x2d;
/** Where the dashes of `8-4-4-4-12` fall, counted in bytes of the id. */
const DASH_BEFORE_BYTE = [false, false, false, false, true, false, true, false, true, false, true, false, false, false, false, false];

const random = Buffer.allocUnsafeSlow(16 * IDS_PER_DRAW);
let drawn = IDS_PER_DRAW;
const text = Buffer.allocUnsafeSlow(36);

/** Fills `target[at..at+16)` with the bytes of a random (version 4) UUID, from random bytes drawn in batches. */
export function drawCacheIdBytes(target: Buffer, at: number): void {
  if (drawn === IDS_PER_DRAW) {
    randomFillSync(random);
    drawn = 0;
  }
  const offset = 16 * drawn++;
  // Byte by byte: Buffer#copy makes a typed-array view per call, more work than sixteen stores.
  for (let index = 0; index < 16; index++) target[at + index] = random[offset + index]!;
  target[at + 6] = (target[at + 6]! & 0x0f) | 0x40; // version 4
  target[at + 8] = (target[at + 8]! & 0x3f) | 0x80; // RFC 4122 variant
}

/**
 * The `8-4-4-4-12` hex text of the 16 bytes at `source[at..]`. A key per cached value, so a put per bid makes many:
 * crypto.randomUUID builds its string by concatenating 20 pieces, a rope of small strings that must be flattened
 * when hashed; this writes the 36 characters into a buffer and reads them back as one flat string.
 */
export function cacheIdText(source: Buffer, at: number): string {
  let position = 0;
  for (let index = 0; index < 16; index++) {
    if (DASH_BEFORE_BYTE[index]) text[position++] = DASH;
    const byte = source[at + index]!;
    text[position++] = HEX_DIGITS[byte >> 4]!;
    text[position++] = HEX_DIGITS[byte & 0x0f]!;
  }
  return text.toString('latin1', 0, 36);
}

const scratch = Buffer.allocUnsafeSlow(16);

/** A random version 4 UUID. */
export function newCacheId(): string {
  drawCacheIdBytes(scratch, 0);
  return cacheIdText(scratch, 0);
}

/**
 * Reads an id's 16 bytes into `target[0..16)`; false when `id` is not in the lowercase `8-4-4-4-12` hex form this
 * cache hands out (anything else was never one of its keys).
 */
export function parseCacheId(id: string, target: Buffer): boolean {
  if (id.length !== 36) return false;
  let position = 0;
  for (let index = 0; index < 16; index++) {
    if (DASH_BEFORE_BYTE[index] && id.charCodeAt(position++) !== DASH) return false;
    const high = hexValue(id.charCodeAt(position++));
    const low = hexValue(id.charCodeAt(position++));
    if (high < 0 || low < 0) return false;
    target[index] = (high << 4) | low;
  }
  return true;
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}
