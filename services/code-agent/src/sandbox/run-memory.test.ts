import { accessSync, constants, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from './create-sandbox';
import type { CodeRun, Sandbox } from './sandbox';
import {
  cgroupDirectory,
  parseCgroupMounts,
  parseProcCgroup,
  RUN_CGROUP_PREFIX,
  type CgroupVersion,
} from './run-cgroup';

const MiB = 1024 * 1024;
const SLOW = 60_000;

/**
 * Eight children of 200 MB each (the memory is written, so it is really used): 1.6 GB in all,
 * each child well under the per-process limit.
 */
const FORK_PROGRAM = [
  'import os, time',
  'kids = []',
  'for i in range(8):',
  '    pid = os.fork()',
  '    if pid == 0:',
  "        block = bytearray(b'\\x01') * (200 * 1024 * 1024)",
  '        time.sleep(10)',
  '        os._exit(0)',
  '    kids.append(pid)',
  'for pid in kids:',
  '    os.waitpid(pid, 0)',
  "print('all done')",
].join('\n');

/**
 * Whether this machine offers the cgroup version to this process (read synchronously, so that a
 * suite it cannot offer is skipped with the reason in its name).
 */
function cgroupOffered(version: CgroupVersion): { ok: true } | { ok: false; reason: string } {
  try {
    const memberships = parseProcCgroup(readFileSync('/proc/self/cgroup', 'utf8'));
    const mounts = parseCgroupMounts(readFileSync('/proc/self/mountinfo', 'utf8'));
    const directoryOf = (controller: string | undefined): string => {
      const own = memberships.find((membership) =>
        controller === undefined
          ? membership.controllers.length === 0
          : membership.controllers.includes(controller),
      );
      const directory = mounts
        .filter(
          (mount) =>
            mount.version === version &&
            (controller === undefined || mount.controllers.includes(controller)),
        )
        .map((mount) => own && cgroupDirectory(mount, own.path))
        .find((candidate) => candidate !== undefined);
      if (directory === undefined) {
        throw new Error(`no cgroup ${version} ${controller ?? ''} mount holds this process`);
      }
      accessSync(directory, constants.W_OK);
      return directory;
    };
    if (version === 'v2') {
      const directory = directoryOf(undefined);
      const offered = readFileSync(path.join(directory, 'cgroup.controllers'), 'utf8').trim();
      if (!/\bmemory\b/.test(offered) || !/\bpids\b/.test(offered)) {
        return {
          ok: false,
          reason: `cgroup v2 at ${directory} offers no memory+pids controllers (only: ${offered || 'none'})`,
        };
      }
    } else {
      directoryOf('memory');
      directoryOf('pids');
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

const VERSIONS: CgroupVersion[] = ['v2', 'v1'];
const offered = new Map(VERSIONS.map((version) => [version, cgroupOffered(version)]));

/** This test process's run cgroups in each parent directory. */
async function runCgroups(sandbox: Sandbox): Promise<string[][]> {
  const parents = (await sandbox.memoryBound()).cgroupParents ?? [];
  return Promise.all(
    parents.map(async (parent) =>
      (await readdir(parent))
        .filter((entry) => entry.startsWith(`${RUN_CGROUP_PREFIX}${process.pid}-`))
        .map((entry) => path.join(parent, entry)),
    ),
  );
}

/** Waits until each parent holds `count` run cgroups with processes in them; returns them. */
async function waitForRunCgroups(sandbox: Sandbox, count: number): Promise<string[][]> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const found = await runCgroups(sandbox);
    const populated = await Promise.all(
      found.map(async (directories) => {
        const procs = await Promise.all(
          directories.map((directory) =>
            readFile(path.join(directory, 'cgroup.procs'), 'utf8').catch(() => ''),
          ),
        );
        return procs.filter((text) => text.trim() !== '').length;
      }),
    );
    if (found.length > 0 && populated.every((populatedCount) => populatedCount === count)) {
      return found;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never saw ${count} populated run cgroups`);
}

let workRoot: string;
beforeAll(async () => {
  workRoot = await mkdtemp(path.join(os.tmpdir(), 'code-agent-memory-'));
  await chmod(workRoot, 0o711);
});
afterAll(async () => {
  await rm(workRoot, { recursive: true, force: true });
});

for (const [index, version] of VERSIONS.entries()) {
  const support = offered.get(version) ?? { ok: false, reason: 'unknown' };
  const suite = support.ok ? describe : describe.skip;
  suite(
    `a whole run bounded by cgroup ${version}${support.ok ? '' : ` — skipped: ${support.reason}`}`,
    () => {
      let sandbox: Sandbox;
      beforeAll(() => {
        sandbox = createSandbox({
          workRoot,
          cgroup: version,
          firstUid: 61700 + index * 10,
          limits: {
            wallClockMs: 20_000,
            cpuSeconds: 10,
            memoryBytes: 512 * MiB,
            runMemoryBytes: 512 * MiB,
            maxProcesses: 32,
          },
        });
      });

      it('says so: the cgroup bounds all processes of a run together', async () => {
        await expect(sandbox.check()).resolves.toEqual({ available: true });
        const bound = await sandbox.memoryBound();
        expect(bound).toMatchObject({
          enforcement: `cgroup-${version}`,
          runMemoryBytes: 512 * MiB,
          maxTasks: 34,
        });
        expect(bound.description).toContain('all processes of a run together use at most 512 MiB');
      });

      it(
        'ends 8 children of 200 MB under a 512 MB run budget with the memory reason, within the budget',
        async () => {
          const run = await sandbox.run({ code: FORK_PROGRAM });
          expect(run.outcome).toBe('memory-limit');
          expect(run.limitMessage).toBe(
            "Stopped: the program used more than 512 MiB of memory in total (all its processes together, the run's memory limit), so the whole run was killed. Use less memory, or ask an operator to raise CODE_AGENT_RUN_MEMORY_LIMIT.",
          );
          expect(run.stdout).not.toContain('all done');
          expect(run.exitCode).toBeNull();
          // Stopped at once, not by the wall clock.
          expect(run.durationMs).toBeLessThan(15_000);
          // The kernel's own measure of the run's peak: within the budget, far below 1.6 GB.
          expect(run.memory).toMatchObject({
            enforcement: `cgroup-${version}`,
            limitBytes: 512 * MiB,
          });
          expect(run.memory.peakBytes ?? 0).toBeLessThanOrEqual(512 * MiB);
          expect((await runCgroups(sandbox)).flat()).toEqual([]);
        },
        SLOW,
      );

      it(
        'still runs a normal program, in a cgroup of its own that is gone afterwards',
        async () => {
          const pending = sandbox.run({
            code: 'import time\nprint(sum(range(101)), flush=True)\ntime.sleep(1)',
          });
          const during = await waitForRunCgroups(sandbox, 1);
          expect(during.map((directories) => directories.length)).toEqual(during.map(() => 1));
          const run = await pending;
          expect(run).toMatchObject({ outcome: 'ok', stdout: '5050\n', limitMessage: null });
          expect(run.memory.peakBytes ?? 1).toBeGreaterThan(0);
          expect((await runCgroups(sandbox)).flat()).toEqual([]);
          for (const directory of during.flat()) {
            await expect(readdir(directory)).rejects.toMatchObject({ code: 'ENOENT' });
          }
        },
        SLOW,
      );

      it(
        'gives concurrent runs separate cgroups, each with the whole budget',
        async () => {
          // 300 MB each: together over the 512 MB budget, so a shared cgroup would kill one.
          const code = [
            'import time',
            "block = bytearray(b'\\x01') * (300 * 1024 * 1024)",
            "print('holding 300 MB', flush=True)",
            'time.sleep(2)',
          ].join('\n');
          const pending = Promise.all([sandbox.run({ code }), sandbox.run({ code })]);
          const during = await waitForRunCgroups(sandbox, 2);
          expect(new Set(during.flat()).size).toBe(during.flat().length);
          const runs: CodeRun[] = await pending;
          expect(runs.map((run) => run.outcome)).toEqual(['ok', 'ok']);
          expect(runs.map((run) => run.stdout)).toEqual(['holding 300 MB\n', 'holding 300 MB\n']);
          for (const run of runs) {
            expect(run.memory.peakBytes ?? 300 * MiB).toBeGreaterThanOrEqual(300 * MiB);
          }
          expect((await runCgroups(sandbox)).flat()).toEqual([]);
        },
        SLOW,
      );
    },
  );
}

describe('the cgroup preference', () => {
  it('auto picks v2, else v1, else the per-process fallback', async () => {
    const expected = offered.get('v2')?.ok
      ? 'cgroup-v2'
      : offered.get('v1')?.ok
        ? 'cgroup-v1'
        : 'per-process';
    const sandbox = createSandbox({ workRoot, firstUid: 61730 });
    expect((await sandbox.memoryBound()).enforcement).toBe(expected);
  });

  const missing = VERSIONS.find((version) => !offered.get(version)?.ok);
  (missing === undefined ? it.skip : it)(
    `refuses to run code when the cgroup asked for cannot be had${missing === undefined ? ' — skipped: every version is offered here' : ` (${missing})`}`,
    async () => {
      const sandbox = createSandbox({ workRoot, firstUid: 61740, cgroup: missing ?? 'v2' });
      const status = await sandbox.check();
      expect(status.available).toBe(false);
      expect(!status.available && status.reason).toContain(
        `CODE_AGENT_CGROUP=${missing ?? 'v2'} asks for a cgroup`,
      );
    },
  );
});

describe('without a cgroup: the per-process fallback', () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = createSandbox({
      workRoot,
      cgroup: 'off',
      firstUid: 61750,
      limits: {
        wallClockMs: 20_000,
        memoryBytes: 128 * MiB,
        runMemoryBytes: 512 * MiB,
        tmpBytes: 64 * MiB,
        maxProcesses: 32,
      },
    });
  });

  it('states exactly what is bounded: processes × address space + /tmp ≤ the run budget', async () => {
    const bound = await sandbox.memoryBound();
    expect(bound).toMatchObject({
      enforcement: 'per-process',
      processMemoryBytes: 128 * MiB,
      // Three processes of the program, and bubblewrap's init.
      maxProcesses: 4,
      reason: 'turned off (CODE_AGENT_CGROUP=off)',
    });
    expect(bound.description).toContain('3 × 128 MiB + 64 MiB = 448 MiB ≤ 512 MiB per run');
  });

  it('runs a normal program', async () => {
    const run = await sandbox.run({ code: 'print(6 * 7)' });
    expect(run).toMatchObject({
      outcome: 'ok',
      stdout: '42\n',
      memory: { enforcement: 'per-process', limitBytes: 512 * MiB, peakBytes: null },
    });
  });

  it(
    'refuses the fourth process of a forking program, and a process over its own limit',
    async () => {
      const forking = await sandbox.run({
        code: [
          'import os, time',
          'for i in range(8):',
          '    if os.fork() == 0:',
          "        block = bytearray(b'\\x01') * (64 * 1024 * 1024)",
          '        time.sleep(1)',
          '        os._exit(0)',
          "    print('child', i, flush=True)",
        ].join('\n'),
      });
      expect(forking.outcome).toBe('process-limit');
      expect(forking.stdout).toBe('child 0\nchild 1\n');
      const big = await sandbox.run({ code: "block = bytearray(b'\\x01') * (200 * 1024 * 1024)" });
      expect(big.outcome).toBe('memory-limit');
      expect(big.limitMessage).toContain('128 MiB memory limit (MemoryError)');
    },
    SLOW,
  );
});
