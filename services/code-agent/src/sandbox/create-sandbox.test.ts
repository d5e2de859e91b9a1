import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PNG_PROGRAM, PNG_SIGNATURE } from '../test-support/png-program';
import { createSandbox } from './create-sandbox';
import type { Sandbox } from './sandbox';
import { SandboxUnavailableError } from './sandbox-unavailable-error';

const SLOW = 60_000;

/** Process ids whose real uid is `uid`, from /proc. */
async function processesOf(uid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = await readFile(`/proc/${entry}/status`, 'utf8');
      const line = /^Uid:\s+(\d+)/m.exec(status);
      if (line && Number(line[1]) === uid) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

describe('createSandbox (bubblewrap)', () => {
  let sandbox: Sandbox;
  let hostDir: string;
  let workRoot: string;
  const secret = `host-secret-${randomUUID()}`;
  const firstUid = 61500;

  beforeAll(async () => {
    hostDir = await mkdtemp(path.join(os.tmpdir(), 'code-agent-host-'));
    workRoot = await mkdtemp(path.join(os.tmpdir(), 'code-agent-work-'));
    // The sandbox user must be able to enter the work root (not list it).
    await chmod(workRoot, 0o711);
    await writeFile(path.join(hostDir, 'secret.txt'), secret);
    sandbox = createSandbox({
      workRoot,
      firstUid,
      limits: {
        wallClockMs: 4_000,
        cpuSeconds: 2,
        memoryBytes: 256 * 1024 * 1024,
        maxProcesses: 16,
        maxFileBytes: 1024 * 1024,
        maxOutputBytes: 64 * 1024,
      },
    });
  });

  afterAll(async () => {
    await rm(hostDir, { recursive: true, force: true });
    await rm(workRoot, { recursive: true, force: true });
  });

  it('reports itself available and runs a program, returning its output', async () => {
    await expect(sandbox.check()).resolves.toEqual({ available: true });
    const run = await sandbox.run({
      code: 'import sys\nprint(6 * 7)\nprint("oops", file=sys.stderr)',
    });
    expect(run).toMatchObject({
      outcome: 'ok',
      exitCode: 0,
      stdout: '42\n',
      stderr: 'oops\n',
      mode: 'bubblewrap',
      limitMessage: null,
    });
  });

  it('returns the files the program wrote, and the inputs it was given are readable', async () => {
    const run = await sandbox.run({
      code: `import json\nprint(json.load(open('inputs.json'))['n'])\n${PNG_PROGRAM}`,
      inputFiles: { 'inputs.json': JSON.stringify({ n: 7 }) },
    });
    expect(run.outcome).toBe('ok');
    expect(run.stdout).toBe('7\nwrote chart.png\n');
    expect(run.files.map((file) => [file.filename, file.mediaType])).toEqual([
      ['chart.png', 'image/png'],
    ]);
    expect(run.files[0]?.bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    // The work directory is gone afterwards.
    expect(await readdir(workRoot)).toEqual([]);
  });

  it('has no network: opening a socket fails', async () => {
    const run = await sandbox.run({
      code: [
        'import socket',
        's = socket.socket()',
        's.settimeout(2)',
        's.connect(("1.1.1.1", 80))',
        'print("connected")',
      ].join('\n'),
    });
    expect(run.outcome).toBe('error');
    expect(run.stdout).not.toContain('connected');
    expect(run.stderr).toMatch(/Network is unreachable|Errno 101/);
  });

  it('cannot read a host secret outside the sandbox, nor /root', async () => {
    const run = await sandbox.run({
      code: [
        'import os',
        `for p in [${JSON.stringify(path.join(hostDir, 'secret.txt'))}, '/root', '/etc/shadow', '/home']:`,
        '    try:',
        '        print(p, "READ", open(p).read() if os.path.isfile(p) else os.listdir(p))',
        '    except Exception as e:',
        '        print(p, "refused", type(e).__name__)',
      ].join('\n'),
    });
    expect(run.outcome).toBe('ok');
    expect(run.stdout).not.toContain(secret);
    expect(run.stdout).not.toContain('READ');
    expect(run.stdout.match(/refused/g)).toHaveLength(4);
  });

  it('cannot write outside its work directory: the system is read-only, /tmp is private', async () => {
    const marker = path.join(hostDir, 'written-by-sandbox.txt');
    const run = await sandbox.run({
      code: [
        `for p in ['/usr/pwned', '/etc/pwned', ${JSON.stringify(marker)}, '/tmp/pwned', 'here.txt']:`,
        '    try:',
        '        open(p, "w").write("x")',
        '        print(p, "written")',
        '    except Exception as e:',
        '        print(p, "refused", type(e).__name__)',
      ].join('\n'),
    });
    expect(run.stdout).toContain('/usr/pwned refused');
    expect(run.stdout).toContain('/etc/pwned refused');
    expect(run.stdout).toContain(`${marker} refused`);
    // The sandbox's own /tmp takes writes, and they vanish with it.
    expect(run.stdout).toContain('/tmp/pwned written');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync('/tmp/pwned')).toBe(false);
    expect(existsSync('/usr/pwned')).toBe(false);
    expect(run.files.map((file) => file.filename)).toEqual(['here.txt']);
  });

  it(
    'stops a fork bomb at the process limit and leaves no process behind',
    async () => {
      const run = await sandbox.run({
        code: 'import os\nwhile True:\n    os.fork()',
      });
      expect(['process-limit', 'timeout', 'cpu-limit']).toContain(run.outcome);
      expect(run.limitMessage).toMatch(/^Stopped: /);
      // Killed processes are gone once reaped; wait for that rather than for a fixed time.
      let left = await processesOf(firstUid);
      for (let attempt = 0; attempt < 100 && left.length > 0; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        left = await processesOf(firstUid);
      }
      expect(left).toEqual([]);
    },
    SLOW,
  );

  it('stops unbounded allocation at the memory limit', async () => {
    const run = await sandbox.run({
      code: 'chunks = []\nwhile True:\n    chunks.append(bytearray(10 ** 7))',
    });
    expect(run.outcome).toBe('memory-limit');
    expect(run.limitMessage).toContain('256 MiB memory limit');
  });

  it(
    'stops a busy loop at the CPU limit and a sleeping one at the wall clock',
    async () => {
      // A generous wall clock, so the CPU limit is what stops it even on a busy machine.
      const cpuBound = createSandbox({
        workRoot,
        firstUid,
        limits: { cpuSeconds: 1, wallClockMs: 30_000 },
      });
      const busy = await cpuBound.run({ code: 'while True:\n    pass' });
      expect(busy.outcome).toBe('cpu-limit');
      expect(busy.exitCode).toBeNull();
      expect(busy.limitMessage).toContain('1 s CPU-time limit');
      const sleeping = await sandbox.run({ code: 'import time\ntime.sleep(600)' });
      expect(sleeping.outcome).toBe('timeout');
      expect(sleeping.limitMessage).toContain('4 s wall-clock limit');
    },
    SLOW,
  );

  it('kills a program that prints gigabytes and keeps only the capped output', async () => {
    const run = await sandbox.run({
      code: 'import sys\nwhile True:\n    sys.stdout.write("x" * 65536)',
    });
    expect(run.outcome).toBe('output-limit');
    expect(run.stdoutTruncated).toBe(true);
    expect(run.stdout.length).toBe(64 * 1024);
    expect(run.limitMessage).toContain('64 KiB output limit');
  });

  it('stops a file over the file-size limit', async () => {
    const run = await sandbox.run({
      code: 'open("big.bin", "wb").write(b"x" * (4 * 1024 * 1024))',
    });
    expect(run.outcome).toBe('file-size-limit');
    expect(run.files.every((file) => file.bytes.length <= 1024 * 1024)).toBe(true);
  });

  it('does not follow a symlink the program planted to a host file', async () => {
    const target = path.join(hostDir, 'secret.txt');
    const run = await sandbox.run({
      code: `import os\nos.symlink(${JSON.stringify(target)}, 'leak.txt')\nos.symlink('/etc/passwd', 'passwd')`,
    });
    expect(run.outcome).toBe('ok');
    expect(run.files).toEqual([]);
    expect(run.skippedFiles).toEqual([
      { filename: 'leak.txt', reason: 'symbolic link (not followed)' },
      { filename: 'passwd', reason: 'symbolic link (not followed)' },
    ]);
  });

  it('stays usable after all that', async () => {
    const run = await sandbox.run({ code: 'print("still fine")' });
    expect(run.stdout).toBe('still fine\n');
  });

  it('kills the run when aborted', async () => {
    const controller = new AbortController();
    const pending = sandbox.run({
      code: 'import time\ntime.sleep(600)',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    const run = await pending;
    expect(run.outcome).toBe('canceled');
  });
});

describe('createSandbox without bubblewrap', () => {
  it('refuses to run and says why when bwrap is missing', async () => {
    const sandbox = createSandbox({ bwrapPath: '/nonexistent/bwrap' });
    const status = await sandbox.check();
    expect(status.available).toBe(false);
    expect(!status.available && status.reason).toContain('bubblewrap is not installed at');
    await expect(sandbox.run({ code: 'print(1)' })).rejects.toBeInstanceOf(SandboxUnavailableError);
  });

  it('runs unsandboxed only when that mode is chosen, still with the limits', async () => {
    const sandbox = createSandbox({
      mode: 'unsandboxed',
      limits: { wallClockMs: 3_000, memoryBytes: 256 * 1024 * 1024 },
    });
    const run = await sandbox.run({ code: 'print("plain")' });
    expect(run).toMatchObject({ outcome: 'ok', stdout: 'plain\n', mode: 'unsandboxed' });
    const hog = await sandbox.run({ code: 'x = bytearray(1024 ** 3)' });
    expect(hog.outcome).toBe('memory-limit');
  });
});
