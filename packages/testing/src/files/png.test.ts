import { describe, expect, it } from '@jest/globals';
import { decodePng } from './decode-png';
import { encodePng } from './encode-png';

describe('PNG for tests', () => {
  it('decodes what it encodes, at its size', () => {
    const png = encodePng({ width: 120, height: 80 });
    expect(decodePng(png)).toEqual({ width: 120, height: 80, dataBytes: 80 * (1 + 120 * 3) });
  });

  it('refuses bytes that are not a PNG, and a PNG with a damaged chunk', () => {
    expect(() => decodePng(Buffer.from('GIF89a not a png'))).toThrow(/signature/);
    const damaged = encodePng({ width: 8, height: 8 });
    damaged[40] = (damaged[40] ?? 0) ^ 0xff;
    expect(() => decodePng(damaged)).toThrow(/damaged/);
  });
});
