import { deflateSync } from 'node:zlib';
import { crc32 } from './crc32';

function chunk(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** Options for {@link encodePng}. */
export interface EncodePngOptions {
  width: number;
  height: number;
  /** The colour of pixel (x, y) as [r, g, b]. @default a diagonal gradient */
  pixel?: (x: number, y: number) => readonly [number, number, number];
  /** zlib level: 0 stores the pixels (a PNG as large as its pixels), 9 packs them. @default 6 */
  level?: number;
}

/**
 * A real PNG (8-bit RGB, not interlaced) of the given size, for tests that need a picture an
 * agent made: any PNG decoder reads it.
 *
 * @example
 * const png = encodePng({ width: 64, height: 48 });
 */
export function encodePng({
  width,
  height,
  pixel = (x, y) => [(x * 4) % 256, (y * 4) % 256, 128],
  level = 6,
}: EncodePngOptions): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const rows = Buffer.alloc((1 + width * 3) * height);
  for (let y = 0; y < height; y += 1) {
    const start = y * (1 + width * 3);
    rows[start] = 0; // filter: none
    for (let x = 0; x < width; x += 1) {
      const [r, g, b] = pixel(x, y);
      rows[start + 1 + x * 3] = r;
      rows[start + 2 + x * 3] = g;
      rows[start + 3 + x * 3] = b;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
