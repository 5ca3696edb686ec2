import { randomFillSync } from 'node:crypto';

/** Random bytes drawn at once: one call to the CSPRNG serves this many ids. */
const IDS_PER_DRAW = 256;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const DASH = 0x2d;

const random = Buffer.allocUnsafeSlow(16 * IDS_PER_DRAW);
let drawn = IDS_PER_DRAW;
const text = Buffer.allocUnsafeSlow(36);

/**
 * A random (version 4) UUID, as crypto.randomUUID makes, for the keys of cached values: one per value, so a put per
 * bid makes many. randomUUID builds its string by concatenating 20 pieces, which leaves a rope of small strings that
 * the Map flattens when it hashes the key and then keeps beside the flat copy for as long as the value is cached;
 * this writes the 36 characters into a buffer and reads them back as one flat string.
 */
export function newCacheId(): string {
  if (drawn === IDS_PER_DRAW) {
    randomFillSync(random);
    drawn = 0;
  }
  const offset = 16 * drawn++;
  random[offset + 6] = (random[offset + 6]! & 0x0f) | 0x40; // version 4
  random[offset + 8] = (random[offset + 8]! & 0x3f) | 0x80; // RFC 4122 variant
  let position = 0;
  for (let index = 0; index < 16; index++) {
    if (index === 4 || index === 6 || index === 8 || index === 10) text[position++] = DASH;
    const byte = random[offset + index]!;
    text[position++] = HEX_DIGITS[byte >> 4]!;
    text[position++] = HEX_DIGITS[byte & 0x0f]!;
  }
  return text.toString('latin1', 0, 36);
}
