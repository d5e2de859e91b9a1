import { describe, expect, it } from '@jest/globals';
import { contentHash } from './content-hash';
import { countTokens } from './count-tokens';

describe('countTokens', () => {
  it('counts cl100k tokens', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('The quick brown fox jumps over the lazy dog.')).toBe(10);
  });

  it('treats special-token strings as plain text', () => {
    expect(countTokens('before <|endoftext|> after')).toBeGreaterThan(3);
  });

  it('counts very long runs of one kind of character in slices, close to the exact count', () => {
    // cl100k encodes 64 x's in 8 tokens, so slicing 4096 x's loses nothing.
    expect(countTokens('x'.repeat(4096))).toBe(512);
    expect(countTokens(`a ${'='.repeat(200)} b`)).toBeGreaterThan(countTokens('='.repeat(64)));
    expect(countTokens(' '.repeat(1000))).toBeGreaterThan(0);
  });
});

describe('contentHash', () => {
  it('is the SHA-256 of the bytes in hex', () => {
    expect(contentHash(new TextEncoder().encode('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(contentHash(new Uint8Array())).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });
});
