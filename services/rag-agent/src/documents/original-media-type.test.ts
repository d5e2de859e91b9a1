import { describe, expect, it } from '@jest/globals';
import { originalMediaType } from './original-media-type';

describe('originalMediaType', () => {
  const utf8 = (text: string) => new TextEncoder().encode(text);

  it('gives the registered type of the detected document type', () => {
    expect(originalMediaType('pdf', utf8('%PDF-1.7'))).toBe('application/pdf');
    expect(originalMediaType('xlsx', new Uint8Array([0x50, 0x4b, 3, 4]))).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
  });

  it('names the charset of text only when the bytes tell it', () => {
    expect(originalMediaType('csv', utf8('name,city\nJürgen,Köln\n'))).toBe(
      'text/csv; charset=utf-8',
    );
    expect(originalMediaType('txt', new Uint8Array([0xff, 0xfe, 0x41, 0x00]))).toBe(
      'text/plain; charset=utf-16',
    );
    // Windows-1252 "Köln": not UTF-8, and its code page is only a guess.
    expect(originalMediaType('md', new Uint8Array([0x4b, 0xf6, 0x6c, 0x6e]))).toBe('text/markdown');
    expect(originalMediaType('html', utf8('<p>hi</p>'))).toBe('text/html; charset=utf-8');
  });
});
