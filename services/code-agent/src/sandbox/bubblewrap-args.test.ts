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

  it("mounts the step's files read-only at /data only when there are any", () => {
    expect(args).not.toContain('/data');
    expect(args).not.toContain('DATA_DIR');
    const withData = buildBubblewrapArgs({
      workDir: '/tmp/run-1/work',
      dataDir: '/tmp/run-1/data',
      python: '/usr/bin/python3',
      limits: DEFAULT_SANDBOX_LIMITS,
    }).join(' ');
    expect(withData).toContain(
      '--bind /tmp/run-1/work /work --ro-bind /tmp/run-1/data /data --remount-ro /',
    );
    expect(withData).toContain('--setenv DATA_DIR /data');
  });

  it('sends matplotlib and other caches to the private /tmp and keeps libraries to one thread', () => {
    const environment = args.join(' ');
    expect(environment).toContain('--setenv MPLBACKEND Agg');
    expect(environment).toContain('--setenv MPLCONFIGDIR /tmp/matplotlib');
    expect(environment).toContain('--setenv XDG_CACHE_HOME /tmp/.cache');
    expect(environment).toContain('--setenv HOME /work');
    expect(environment).toContain('--setenv OPENBLAS_NUM_THREADS 1');
    expect(args).toEqual(expect.arrayContaining(['--ro-bind-try', '/etc/fonts']));
  });

  it('binds the shared matplotlib font cache read-only into the private /tmp/matplotlib', () => {
    const withCache = buildBubblewrapArgs({
      workDir: '/tmp/run-1/work',
      python: '/usr/bin/python3',
      limits: DEFAULT_SANDBOX_LIMITS,
      fontCache: { dir: '/tmp/fonts-1', files: ['fontlist-v330.json'] },
    }).join(' ');
    expect(withCache).toContain(
      '--tmpfs /tmp --ro-bind /tmp/fonts-1/fontlist-v330.json /tmp/matplotlib/fontlist-v330.json',
    );
  });
});
