import { connect } from 'node:net';
import { existsSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { DOVECOT_MISSING, startDovecot } from './start-dovecot';

describe('startDovecot', () => {
  it('fails, saying how to install dovecot, when it is missing', async () => {
    await expect(startDovecot({ binary: '/nonexistent/dovecot' })).rejects.toThrow(
      'apt-get install dovecot-imapd',
    );
    expect(DOVECOT_MISSING).toContain('dovecot-imapd');
  });

  it('leaves nothing behind', async () => {
    const dovecot = await startDovecot();
    await dovecot.stop();
    expect(existsSync(dovecot.dir)).toBe(false);
  }, 20_000);

  it('serves IMAP on a free loopback port and stops', async () => {
    const dovecot = await startDovecot();
    try {
      expect(dovecot.host).toBe('127.0.0.1');
      expect(dovecot.port).toBeGreaterThan(0);
    } finally {
      await dovecot.stop();
    }
    await expect(
      new Promise((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: dovecot.port });
        socket.once('connect', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', reject);
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
  }, 20_000);
});
