import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { ConfigError } from '@fleet/errors';
import { readState, removeState, writeState, type FleetState } from './state-file';

const state: FleetState = {
  version: 1,
  startedAt: '2026-11-22T10:00:00.000Z',
  services: [
    {
      name: 'gateway',
      pid: 4242,
      port: 8080,
      url: 'http://127.0.0.1:8080',
      entry: 'services/gateway/dist/main.js',
      logFile: '/tmp/gateway.log',
      logOffset: 10,
    },
  ],
  redis: { url: 'redis://127.0.0.1:40000', source: 'started', pid: 4241, port: 40000 },
};

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'fleet-state-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('state file', () => {
  it('round-trips, with mode 0600 and no temporary file left behind', async () => {
    const file = path.join(directory, '.fleet', 'state.json');
    await writeState(file, state);
    await expect(readState(file)).resolves.toEqual(state);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(path.dirname(file))).toEqual(['state.json']);
  });

  it('reads a missing file as nothing running, and removing it twice is fine', async () => {
    const file = path.join(directory, 'state.json');
    await expect(readState(file)).resolves.toBeUndefined();
    await writeState(file, state);
    await removeState(file);
    await removeState(file);
    await expect(readState(file)).resolves.toBeUndefined();
  });

  it('refuses a file that does not match the schema, naming the file', async () => {
    const file = path.join(directory, 'state.json');
    await writeFile(file, JSON.stringify({ ...state, version: 2 }));
    await expect(readState(file)).rejects.toBeInstanceOf(ConfigError);
    await writeFile(file, 'not json');
    await expect(readState(file)).rejects.toThrow(file);
  });
});
