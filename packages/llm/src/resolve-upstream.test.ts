import { describe, expect, it } from '@jest/globals';
import { DEFAULT_OPENAI_BASE_URL, resolveUpstream } from './resolve-upstream';

describe('resolveUpstream', () => {
  it('is offline with neither a key nor a base URL, and says how to fix it', () => {
    const upstream = resolveUpstream({});
    expect(upstream.offline).toBe(true);
    expect(upstream.offline && upstream.reason).toContain('OPENAI_BASE_URL');
  });

  it('treats blank values as unset', () => {
    expect(resolveUpstream({ apiKey: '  ', baseURL: '' }).offline).toBe(true);
  });

  it('uses OpenAI when only a key is given', () => {
    expect(resolveUpstream({ apiKey: 'sk-1' })).toEqual({
      offline: false,
      baseURL: DEFAULT_OPENAI_BASE_URL,
      apiKey: 'sk-1',
    });
  });

  it('accepts a base URL without a key (local servers) and drops trailing slashes', () => {
    expect(resolveUpstream({ baseURL: 'http://127.0.0.1:11434/v1/' })).toEqual({
      offline: false,
      baseURL: 'http://127.0.0.1:11434/v1',
      apiKey: undefined,
    });
  });
});
