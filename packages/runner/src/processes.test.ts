import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { isGroupAlive, isOwnProcess, startDetached, stopProcessGroup } from './processes';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'fleet-processes-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function script(name: string, source: string): Promise<string> {
  const file = path.join(directory, name);
  await writeFile(file, source);
  return file;
}

async function waitForText(file: string, text: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if ((await readFile(file, 'utf8').catch(() => '')).includes(text)) return;
    await sleep(25);
  }
  throw new Error(`${file} never contained ${text}`);
}

describe('startDetached', () => {
  it('appends output to the log, records the offset and reports the exit', async () => {
    const logFile = path.join(directory, 'logs', 'job.log');
    const entry = await script(
      'job.js',
      "console.log('out'); console.error('err'); process.exit(3);",
    );
    const first = await startDetached({
      command: process.execPath,
      args: [entry],
      cwd: directory,
      env: {},
      logFile,
    });
    expect(first.logOffset).toBe(0);
    await expect(first.exited).resolves.toEqual({ code: 3, signal: null });
    expect(first.exitInfo()).toEqual({ code: 3, signal: null });
    const second = await startDetached({
      command: process.execPath,
      args: [entry],
      cwd: directory,
      env: {},
      logFile,
    });
    await second.exited;
    expect(second.logOffset).toBe('out\nerr\n'.length);
    expect(await readFile(logFile, 'utf8')).toBe('out\nerr\nout\nerr\n');
  });

  it('rejects with ENOENT when the executable does not exist', async () => {
    await expect(
      startDetached({
        command: path.join(directory, 'no-such-binary'),
        args: [],
        cwd: directory,
        env: {},
        logFile: path.join(directory, 'x.log'),
      }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('stopProcessGroup', () => {
  it('stops the whole group with SIGTERM, children included', async () => {
    const logFile = path.join(directory, 'parent.log');
    const child = await script('child.js', "console.log('child up'); setInterval(() => {}, 1000);");
    const parent = await script(
      'parent.js',
      `require('node:child_process').spawn(process.execPath, [${JSON.stringify(child)}], { stdio: 'inherit' });
       console.log('parent up'); setInterval(() => {}, 1000);`,
    );
    const started = await startDetached({
      command: process.execPath,
      args: [parent],
      cwd: directory,
      env: {},
      logFile,
    });
    await waitForText(logFile, 'child up');
    expect(isOwnProcess(started.pid, parent)).toBe(true);
    expect(isOwnProcess(started.pid, 'something-else.js')).toBe(false);
    await expect(stopProcessGroup({ pid: started.pid, graceMs: 10_000 })).resolves.toBe('stopped');
    expect(isGroupAlive(started.pid)).toBe(false);
  });

  it('sends SIGKILL when SIGTERM is ignored past the grace period', async () => {
    const logFile = path.join(directory, 'stubborn.log');
    const entry = await script(
      'stubborn.js',
      "process.on('SIGTERM', () => console.log('ignored')); console.log('up'); setInterval(() => {}, 1000);",
    );
    const started = await startDetached({
      command: process.execPath,
      args: [entry],
      cwd: directory,
      env: {},
      logFile,
    });
    await waitForText(logFile, 'up');
    await expect(stopProcessGroup({ pid: started.pid, graceMs: 300 })).resolves.toBe('killed');
    await expect(started.exited).resolves.toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('reports a process that is gone as not running', async () => {
    const entry = await script('quick.js', '');
    const started = await startDetached({
      command: process.execPath,
      args: [entry],
      cwd: directory,
      env: {},
      logFile: path.join(directory, 'q.log'),
    });
    await started.exited;
    await sleep(50);
    await expect(stopProcessGroup({ pid: started.pid })).resolves.toBe('not-running');
  });
});
