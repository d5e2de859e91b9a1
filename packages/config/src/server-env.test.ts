import { describe, expect, it, jest } from '@jest/globals';
import { a2aServerEnv, loadConfig, publicUrlOf, renderConfigMarkdown } from './index';

const spec = a2aServerEnv({
  prefix: 'WEB_AGENT',
  label: 'the web agent',
  defaultPort: 8084,
  deprecatedPublicUrlNames: ['WEB_AGENT_URL'],
});
const token = { FLEET_INTERNAL_TOKEN: 'x'.repeat(16) };

describe('a2aServerEnv', () => {
  it('names every variable after the prefix and applies the defaults', () => {
    const onDeprecated = jest.fn();
    const config = loadConfig(spec, token, { onDeprecated });
    expect(config).toEqual({
      port: 8084,
      host: '127.0.0.1',
      publicUrl: undefined,
      internalToken: 'x'.repeat(16),
    });
    expect(onDeprecated).not.toHaveBeenCalled();
    expect(publicUrlOf(config)).toBe('http://127.0.0.1:8084');
  });

  it('reads the public URL under its new name without a warning', () => {
    const onDeprecated = jest.fn();
    const config = loadConfig(
      spec,
      { ...token, WEB_AGENT_PUBLIC_URL: 'http://web-agent:8084/', WEB_AGENT_URL: 'http://old:1' },
      { onDeprecated },
    );
    expect(config.publicUrl).toBe('http://web-agent:8084');
    expect(onDeprecated).not.toHaveBeenCalled();
  });

  it('still reads the old name, once, with a deprecation warning naming the new one', () => {
    const onDeprecated = jest.fn();
    const config = loadConfig(
      spec,
      { ...token, WEB_AGENT_URL: 'http://web-agent:8084' },
      { onDeprecated },
    );
    expect(config.publicUrl).toBe('http://web-agent:8084');
    expect(onDeprecated).toHaveBeenCalledTimes(1);
    expect(onDeprecated).toHaveBeenCalledWith('WEB_AGENT_URL', 'WEB_AGENT_PUBLIC_URL');
  });

  it('emits a Node DeprecationWarning by default', () => {
    const emit = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      loadConfig(spec, { ...token, WEB_AGENT_URL: 'http://web-agent:8084' });
      expect(emit).toHaveBeenCalledWith(
        expect.stringContaining('WEB_AGENT_URL is deprecated: set WEB_AGENT_PUBLIC_URL'),
        expect.objectContaining({ type: 'DeprecationWarning', code: 'FLEET_ENV_RENAMED' }),
      );
    } finally {
      emit.mockRestore();
    }
  });

  it('names the old variable when its value is invalid', () => {
    expect(() =>
      loadConfig(spec, { ...token, WEB_AGENT_URL: 'ftp://x' }, { onDeprecated: () => undefined }),
    ).toThrow(/WEB_AGENT_URL \("ftp:\/\/x"\): expected an http/);
  });

  it('documents the earlier name', () => {
    expect(renderConfigMarkdown([{ title: 'Web agent', spec }])).toContain(
      'Formerly WEB_AGENT_URL (still read, with a deprecation warning).',
    );
  });
});

describe('publicUrlOf', () => {
  it('prefers the public URL, maps wildcard hosts to loopback and brackets IPv6', () => {
    expect(publicUrlOf({ publicUrl: 'http://a:1', host: '0.0.0.0', port: 2 })).toBe('http://a:1');
    expect(publicUrlOf({ host: '0.0.0.0', port: 2 })).toBe('http://127.0.0.1:2');
    expect(publicUrlOf({ host: '::', port: 2 })).toBe('http://127.0.0.1:2');
    expect(publicUrlOf({ host: '::1', port: 2 })).toBe('http://[::1]:2');
    expect(publicUrlOf({ host: 'svc', port: 2 })).toBe('http://svc:2');
  });
});
