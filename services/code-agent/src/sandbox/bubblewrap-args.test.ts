import { describe, expect, it } from '@jest/globals';
import { buildBubblewrapArgs } from './bubblewrap-args';
import { DEFAULT_SANDBOX_LIMITS } from './sandbox-limits';

describe('buildBubblewrapArgs', () => {
  const args = buildBubblewrapArgs({
    workDir: '/tmp/run-1',
    python: '/usr/bin/python3',
    limits: DEFAULT_SANDBOX_LIMITS,
  });

  it('unshares everything, dies with its parent and starts a new session', () => {
    expect(args).toEqual(
      expect.arrayContaining([
        '--unshare-all',
        '--unshare-user',
        '--disable-userns',
        '--die-with-parent',
        '--new-session',
        '--clearenv',
      ]),
    );
    expect(args.slice(args.indexOf('--cap-drop'), args.indexOf('--cap-drop') + 2)).toEqual([
      '--cap-drop',
      'ALL',
    ]);
  });

  it('binds the system read-only, the work directory read-write, and nothing of /root or /home', () => {
    const pairs = (flag: string) =>
      args.flatMap((arg, index) => (arg === flag ? [args[index + 1]] : []));
    expect(pairs('--ro-bind-try')).toEqual(expect.arrayContaining(['/usr', '/lib', '/bin']));
    expect(
      pairs('--ro-bind-try').some((path) => /^\/(root|home|var|opt|tmp)\b/.test(path ?? '')),
    ).toBe(false);
    expect(pairs('--bind')).toEqual(['/tmp/run-1']);
    expect(args.join(' ')).toContain('--bind /tmp/run-1 /work --remount-ro /');
    expect(args.join(' ')).toContain(`--size ${DEFAULT_SANDBOX_LIMITS.tmpBytes} --tmpfs /tmp`);
  });

  it('starts Python through the launcher that sets the limits', () => {
    const launcher = args.at(-1) ?? '';
    expect(args.slice(-4, -1)).toEqual(['/usr/bin/python3', '-I', '-c']);
    expect(launcher).toContain(
      `resource.setrlimit(resource.RLIMIT_AS, (${DEFAULT_SANDBOX_LIMITS.memoryBytes}, ${DEFAULT_SANDBOX_LIMITS.memoryBytes}))`,
    );
    expect(launcher).toContain('RLIMIT_NPROC');
    expect(launcher).toContain('RLIMIT_FSIZE');
    expect(launcher).toContain(`RLIMIT_CPU, (${DEFAULT_SANDBOX_LIMITS.cpuSeconds}, `);
    expect(launcher).toContain(
      `os.execv("/usr/bin/python3", ["/usr/bin/python3", '-I', '-B', "main.py"])`,
    );
  });
});
