import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { ConfigError } from '@fleet/errors';
import { devGatewayApiKeys, loadOrCreateSecrets } from './secrets';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'fleet-secrets-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('loadOrCreateSecrets', () => {
  it('creates the file once, readable only by its owner, and then keeps the same secrets', async () => {
    const file = path.join(directory, '.fleet', 'secrets.json');
    const first = await loadOrCreateSecrets(file);
    expect(first.created).toBe(true);
    expect(first.secrets.gatewayApiKey).toMatch(/^sk-fleet-dev-[A-Za-z0-9_-]{32}$/);
    expect(first.secrets.internalToken.length).toBeGreaterThanOrEqual(32);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const second = await loadOrCreateSecrets(file);
    expect(second).toEqual({ secrets: first.secrets, created: false });
  });

  it('generates different secrets for different checkouts', async () => {
    const one = await loadOrCreateSecrets(path.join(directory, 'a.json'));
    const two = await loadOrCreateSecrets(path.join(directory, 'b.json'));
    expect(one.secrets.gatewayApiKey).not.toBe(two.secrets.gatewayApiKey);
  });

  it('refuses a damaged file and says how to recover', async () => {
    const file = path.join(directory, 'secrets.json');
    await writeFile(file, '{"gatewayApiKey": 1}');
    const attempt = loadOrCreateSecrets(file);
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow(/Delete the file/);
  });
});

describe('devGatewayApiKeys', () => {
  it('maps the dev key to tenant dev', () => {
    expect(devGatewayApiKeys({ gatewayApiKey: 'sk-fleet-dev-abc', internalToken: 't' })).toBe(
      'sk-fleet-dev-abc:dev',
    );
  });
});
