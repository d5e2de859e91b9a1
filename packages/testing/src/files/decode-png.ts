import { inflateSync } from 'node:zlib';
import { crc32 } from './crc32';

/** What {@link decodePng} read from a PNG. */
export interface DecodedPng {
  width: number;
  height: number;
  /** Bytes of the decompressed image data (one filter byte per row, then the row's pixels). */
  dataBytes: number;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Channels per colour type (PNG spec, IHDR). */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * Decodes a PNG far enough to know it is one: the signature, every chunk's CRC, the header, and
 * the image data inflated to exactly the size the header implies (non-interlaced images). Throws
 * on anything else, so a test that gets bytes named `chart.png` knows they are a picture.
 */
export function decodePng(bytes: Buffer): DecodedPng {
  if (!bytes.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG: no PNG signature');
  let offset = 8;
  let header:
    { width: number; height: number; depth: number; type: number; interlace: number } | undefined;
  const data: Buffer[] = [];
  let ended = false;
  while (offset + 12 <= bytes.length && !ended) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    const crc = bytes.readUInt32BE(offset + 8 + length);
    if (crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== crc) {
      throw new Error(`a damaged PNG: the CRC of chunk ${type} is wrong`);
    }
    if (type === 'IHDR') {
      header = {
        width: body.readUInt32BE(0),
        height: body.readUInt32BE(4),
        depth: body[8] ?? 0,
        type: body[9] ?? 0,
        interlace: body[12] ?? 0,
      };
    } else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') ended = true;
    offset += 12 + length;
  }
  if (header === undefined || !ended) throw new Error('a damaged PNG: no IHDR or IEND');
  if (header.interlace !== 0) throw new Error('an interlaced PNG (not decoded here)');
  const channels = CHANNELS[header.type];
  if (channels === undefined) throw new Error(`a PNG of unknown colour type ${header.type}`);
  const rowBytes = 1 + Math.ceil((header.width * channels * header.depth) / 8);
  const inflated = inflateSync(Buffer.concat(data));
  if (inflated.length !== rowBytes * header.height) {
    throw new Error(
      `a damaged PNG: ${inflated.length} bytes of image data, ${rowBytes * header.height} expected`,
    );
  }
  return { width: header.width, height: header.height, dataBytes: inflated.length };
}
