import type { SandboxLimits } from './sandbox-limits';

/** The file the program is written to, inside the work directory. */
export const PROGRAM_FILENAME = 'main.py';

/**
 * A tiny Python launcher, run with `python3 -c`: it sets the resource limits on itself and then
 * replaces itself with the program (`exec`), so the limits hold for the program and everything it
 * starts. Python sets them rather than `prlimit` so that the sandbox needs nothing but Python.
 * `-I` (isolated: no PYTHON* variables, no user site) and `-B` (no .pyc files) keep the host's
 * Python settings out.
 *
 * @example
 * spawn(python, ['-I', '-c', limitLauncher(limits, python)]);
 */
export function limitLauncher(
  limits: Pick<SandboxLimits, 'cpuSeconds' | 'memoryBytes' | 'maxProcesses' | 'maxFileBytes'>,
  python: string,
): string {
  // [name, soft, hard]. CPU: SIGXCPU at the soft limit (reported as such), SIGKILL a second later
  // should the program catch it.
  const rules: [string, number, number][] = [
    ['RLIMIT_CPU', limits.cpuSeconds, limits.cpuSeconds + 1],
    ['RLIMIT_AS', limits.memoryBytes, limits.memoryBytes],
    ['RLIMIT_NPROC', limits.maxProcesses, limits.maxProcesses],
    ['RLIMIT_FSIZE', limits.maxFileBytes, limits.maxFileBytes],
    ['RLIMIT_CORE', 0, 0],
  ];
  return [
    'import os, resource',
    ...rules.map(
      ([name, soft, hard]) => `resource.setrlimit(resource.${name}, (${soft}, ${hard}))`,
    ),
    `os.execv(${JSON.stringify(python)}, [${JSON.stringify(python)}, '-I', '-B', ${JSON.stringify(PROGRAM_FILENAME)}])`,
  ].join('\n');
}
