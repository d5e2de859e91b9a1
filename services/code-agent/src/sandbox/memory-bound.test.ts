import { describe, expect, it } from '@jest/globals';
import { planMemoryBound } from './memory-bound';
import {
  cgroupDirectory,
  joinCgroupArgs,
  parseCgroupMounts,
  parseProcCgroup,
  type CgroupSupport,
} from './run-cgroup';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './sandbox-limits';

const MiB = 1024 * 1024;

const v1Support: CgroupSupport = {
  version: 'v1',
  parents: ['/sys/fs/cgroup/memory/agent', '/sys/fs/cgroup/pids/agent'],
  create: () => Promise.reject(new Error('not in this test')),
};
const none: CgroupSupport = { version: 'none', reason: 'no cgroup here' };

describe('planMemoryBound', () => {
  const limits: SandboxLimits = {
    ...DEFAULT_SANDBOX_LIMITS,
    memoryBytes: 128 * MiB,
    runMemoryBytes: 512 * MiB,
    tmpBytes: 64 * MiB,
    maxProcesses: 32,
  };

  it('with a cgroup: bounds the whole run by it and keeps the limits', () => {
    const plan = planMemoryBound({ limits, support: v1Support, sandboxed: true });
    expect(plan.ok).toBe(true);
    expect(plan.ok && plan.limits).toEqual(limits);
    expect(plan.bound).toMatchObject({
      enforcement: 'cgroup-v1',
      runMemoryBytes: 512 * MiB,
      maxProcesses: 32,
      maxTasks: 34,
      cgroupParents: ['/sys/fs/cgroup/memory/agent', '/sys/fs/cgroup/pids/agent'],
    });
    expect(plan.bound.description).toContain('all processes of a run together use at most 512 MiB');
  });

  it('without one: fewer processes, so that processes × address space + /tmp ≤ the run budget', () => {
    const plan = planMemoryBound({ limits, support: none, sandboxed: true });
    // (512 − 64) / 128 = 3 processes of the program, + bubblewrap's init for RLIMIT_NPROC.
    expect(plan.ok && plan.limits).toMatchObject({ memoryBytes: 128 * MiB, maxProcesses: 4 });
    expect(plan.bound).toMatchObject({
      enforcement: 'per-process',
      processMemoryBytes: 128 * MiB,
      maxProcesses: 4,
      reason: 'no cgroup here',
    });
    expect(plan.bound.description).toContain('3 × 128 MiB + 64 MiB = 448 MiB ≤ 512 MiB per run');
  });

  it('without one: never more processes than configured', () => {
    const plan = planMemoryBound({
      limits: { ...limits, runMemoryBytes: 64 * 1024 * MiB, maxProcesses: 8 },
      support: none,
      sandboxed: true,
    });
    expect(plan.ok && plan.limits.maxProcesses).toBe(8);
  });

  it('without one: a budget below one process gives one process the rest', () => {
    const plan = planMemoryBound({
      limits: { ...limits, memoryBytes: 512 * MiB, runMemoryBytes: 256 * MiB },
      support: none,
      sandboxed: true,
    });
    expect(plan.ok && plan.limits).toMatchObject({ memoryBytes: 192 * MiB, maxProcesses: 2 });
    expect(plan.bound.description).toContain('1 × 192 MiB + 64 MiB = 256 MiB ≤ 256 MiB');
  });

  it('without one: refuses a budget that leaves Python no room', () => {
    const plan = planMemoryBound({
      limits: { ...limits, runMemoryBytes: 80 * MiB },
      support: none,
      sandboxed: true,
    });
    expect(plan.ok).toBe(false);
    expect(!plan.ok && plan.reason).toContain('CODE_AGENT_RUN_MEMORY_LIMIT');
  });

  it('unsandboxed without one: says that the run total is not enforced', () => {
    const plan = planMemoryBound({ limits, support: none, sandboxed: false });
    expect(plan.ok && plan.limits).toEqual(limits);
    expect(plan.bound.description).toContain('NOT enforced');
  });
});

describe('cgroup discovery helpers', () => {
  it('parses /proc/self/cgroup, v1 and v2 lines', () => {
    expect(
      parseProcCgroup('8:pids:/\n4:memory:/process_api/abc\n2:cpu,cpuacct:/x\n0::/user.slice/a\n'),
    ).toEqual([
      { controllers: ['pids'], path: '/' },
      { controllers: ['memory'], path: '/process_api/abc' },
      { controllers: ['cpu', 'cpuacct'], path: '/x' },
      { controllers: [], path: '/user.slice/a' },
    ]);
  });

  it('finds the cgroup mounts in mountinfo and maps a cgroup to its directory', () => {
    const mounts = parseCgroupMounts(
      [
        '30 25 0:26 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory',
        '31 25 0:27 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
        '32 25 0:28 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate',
        '22 1 8:1 / / rw - ext4 /dev/sda1 rw',
      ].join('\n'),
    );
    expect(mounts).toEqual([
      {
        version: 'v1',
        root: '/',
        mountPoint: '/sys/fs/cgroup/memory',
        controllers: ['rw', 'memory'],
      },
      { version: 'v2', root: '/', mountPoint: '/sys/fs/cgroup/unified', controllers: [] },
      { version: 'v2', root: '/docker/abc', mountPoint: '/sys/fs/cgroup', controllers: [] },
    ]);
    const [memory, unified, docker] = mounts;
    expect(memory && cgroupDirectory(memory, '/process_api/abc')).toBe(
      '/sys/fs/cgroup/memory/process_api/abc',
    );
    expect(unified && cgroupDirectory(unified, '/')).toBe('/sys/fs/cgroup/unified');
    expect(docker && cgroupDirectory(docker, '/docker/abc')).toBe('/sys/fs/cgroup');
    expect(docker && cgroupDirectory(docker, '/docker/abc/sub')).toBe('/sys/fs/cgroup/sub');
    expect(docker && cgroupDirectory(docker, '/other')).toBeUndefined();
  });

  it('joins the cgroup first, then becomes the sandbox command with its arguments untouched', () => {
    const args = joinCgroupArgs(['/cg/a/cgroup.procs', '/cg/b/cgroup.procs'], '/usr/bin/bwrap', [
      '--',
      'x y',
    ]);
    expect(args.slice(0, 3)).toEqual(['-I', '-S', '-c']);
    expect(args.slice(4)).toEqual([
      '/cg/a/cgroup.procs',
      '/cg/b/cgroup.procs',
      '--',
      '/usr/bin/bwrap',
      '--',
      'x y',
    ]);
  });
});
