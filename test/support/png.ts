import { inflateSync } from 'node:zlib';

/** A decoded 8-bit RGB or RGBA PNG: `pixel(x, y)` is `[r, g, b]`. */
export interface Image {
  width: number;
  height: number;
  pixel(x: number, y: number): [number, number, number];
}

/** Decodes the PNGs a browser screenshot makes (8-bit, RGB or RGBA, not interlaced): enough to read colours back. */
export function decodePng(png: Buffer): Image {
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const chunk = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = chunk.readUInt32BE(0);
      height = chunk.readUInt32BE(4);
      const [depth, colour, , , interlace] = [chunk[8], chunk[9], chunk[10], chunk[11], chunk[12]];
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') {
      data.push(chunk);
    }
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const left = i >= channels ? pixels[y * stride + i - channels]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + i]! : 0;
      const upLeft = y > 0 && i >= channels ? pixels[(y - 1) * stride + i - channels]! : 0;
      let predicted = 0;
      if (filter === 1) predicted = left;
      else if (filter === 2) predicted = up;
      else if (filter === 3) predicted = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        predicted = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      pixels[y * stride + i] = (line[i]! + predicted) & 0xff;
    }
  }
  return {
    width,
    height,
    pixel: (x, y) => {
      const at = y * stride + x * channels;
      return [pixels[at]!, pixels[at + 1]!, pixels[at + 2]!];
    },
  };
}

/** `#rrggbb` as `[r, g, b]`. */
export function rgb(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff];
}

/** Whether a pixel is this colour, give or take a little colour management. */
export function isColour(pixel: [number, number, number], colour: [number, number, number], tolerance = 6): boolean {
  return Math.abs(pixel[0] - colour[0]) <= tolerance && Math.abs(pixel[1] - colour[1]) <= tolerance && Math.abs(pixel[2] - colour[2]) <= tolerance;
}

/** A bar of one colour: a run of rows where the colour fills at least `minWidth` pixels. */
export interface Bar {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/** The horizontal bars of a colour in an image, top to bottom. */
export function barsOf(image: Image, colour: [number, number, number], minWidth = 3): Bar[] {
  const bars: Bar[] = [];
  let current: Bar | undefined;
  for (let y = 0; y < image.height; y++) {
    let left = -1;
    let right = -1;
    let count = 0;
    for (let x = 0; x < image.width; x++) {
      if (!isColour(image.pixel(x, y), colour)) continue;
      count++;
      if (left < 0) left = x;
      right = x;
    }
    if (count >= minWidth) {
      if (current && current.bottom === y - 1) {
        current.bottom = y;
        current.left = Math.min(current.left, left);
        current.right = Math.max(current.right, right);
      } else {
        current = { top: y, bottom: y, left, right };
        bars.push(current);
      }
    }
  }
  return bars;
}

/** The column holding the most pixels of a colour (a vertical line's x), or -1. */
export function columnOf(image: Image, colour: [number, number, number]): number {
  let best = -1;
  let most = 0;
  for (let x = 0; x < image.width; x++) {
    let count = 0;
    for (let y = 0; y < image.height; y++) if (isColour(image.pixel(x, y), colour)) count++;
    if (count > most) {
      most = count;
      best = x;
    }
  }
  return best;
}
