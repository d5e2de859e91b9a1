import { describe, expect, it } from '@jest/globals';
import { publicUrlOf } from '@fleet/agent-kit';
import { ConfigError } from '@fleet/errors';
import { loadMailAgentConfig, mailAccountFromConfig } from './config';

const TOKEN = 'mail-agent-config-token-0000';

describe('loadMailAgentConfig', () => {
  it('applies the defaults: no mailbox', () => {
    const config = loadMailAgentConfig({ FLEET_INTERNAL_TOKEN: TOKEN });
    expect(config).toMatchObject({
      port: 8085,
      host: '127.0.0.1',
      searchLimit: 10,
      approvalTtlSeconds: 3600,
      tlsRejectUnauthorized: true,
    });
    expect(mailAccountFromConfig(config)).toBeUndefined();
    expect(publicUrlOf({ ...config, host: '0.0.0.0' })).toBe('http://127.0.0.1:8085');
  });

  it('reads a password account with TLS defaults', () => {
    const config = loadMailAgentConfig({
      FLEET_INTERNAL_TOKEN: TOKEN,
      MAIL_AGENT_PUBLIC_URL: 'http://mail-agent:8085/',
      MAIL_IMAP_HOST: 'imap.example.com',
      MAIL_SMTP_HOST: 'smtp.example.com',
      MAIL_SMTP_PORT: '587',
      MAIL_USER: 'me@example.com',
      MAIL_PASSWORD: 'pw',
      MAIL_SENT_MAILBOX: 'Sent Items',
    });
    expect(publicUrlOf(config)).toBe('http://mail-agent:8085');
    expect(mailAccountFromConfig(config)).toEqual({
      user: 'me@example.com',
      auth: { kind: 'password', password: 'pw' },
      from: 'me@example.com',
      imap: { host: 'imap.example.com', port: 993, secure: true },
      smtp: { host: 'smtp.example.com', port: 587, secure: false },
      sentMailbox: 'Sent Items',
      saveSentCopy: true,
      tlsRejectUnauthorized: true,
      timeoutMs: 30_000,
    });
  });

  it('prefers the OAuth2 token and lets Gmail file its own sent mail', () => {
    const account = mailAccountFromConfig(
      loadMailAgentConfig({
        FLEET_INTERNAL_TOKEN: TOKEN,
        MAIL_IMAP_HOST: 'imap.gmail.com',
        MAIL_SMTP_HOST: 'smtp.gmail.com',
        MAIL_USER: 'me@gmail.com',
        MAIL_PASSWORD: 'pw',
        MAIL_OAUTH2_ACCESS_TOKEN: 'ya29.token',
        MAIL_FROM: 'Me <me@gmail.com>',
      }),
    );
    expect(account).toMatchObject({
      auth: { kind: 'oauth2', accessToken: 'ya29.token' },
      from: 'Me <me@gmail.com>',
      smtp: { host: 'smtp.gmail.com', port: 465, secure: true },
      saveSentCopy: false,
    });
  });

  it('refuses a server without credentials, naming what is missing', () => {
    const config = loadMailAgentConfig({
      FLEET_INTERNAL_TOKEN: TOKEN,
      MAIL_IMAP_HOST: 'imap.example.com',
    });
    expect(() => mailAccountFromConfig(config)).toThrow(ConfigError);
    expect(() => mailAccountFromConfig(config)).toThrow(
      /MAIL_USER is not set and neither MAIL_PASSWORD nor MAIL_OAUTH2_ACCESS_TOKEN is set/,
    );
  });

  it('fails naming every bad variable', () => {
    let message = '';
    try {
      loadMailAgentConfig({
        MAIL_IMAP_PORT: 'x',
        MAIL_SEARCH_LIMIT: '0',
        MAIL_SMTP_SECURE: 'maybe',
      });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    for (const name of [
      'FLEET_INTERNAL_TOKEN',
      'MAIL_IMAP_PORT',
      'MAIL_SEARCH_LIMIT',
      'MAIL_SMTP_SECURE',
    ]) {
      expect(message).toContain(name);
    }
  });
});
