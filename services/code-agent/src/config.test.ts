import { describe, expect, it } from '@jest/globals';
import { publicUrlOf } from '@fleet/config';
import { ConfigError } from '@fleet/errors';
import { loadCodeAgentConfig, sandboxLimits } from './config';

const TOKEN = 'code-agent-config-token-0000';

describe('loadCodeAgentConfig', () => {
  it('applies the defaults: bubblewrap, approval required', () => {
    const config = loadCodeAgentConfig({ FLEET_INTERNAL_TOKEN: TOKEN });
    expect(config).toMatchObject({
      port: 8086,
      host: '127.0.0.1',
      allowUnapproved: false,
      sandbox: 'bubblewrap',
      bwrapPath: '/usr/bin/bwrap',
      python: '/usr/bin/python3',
      maxAttempts: 2,
      approvalTtlSeconds: 900,
      cgroup: 'auto',
    });
    expect(sandboxLimits(config)).toEqual({
      wallClockMs: 20_000,
      cpuSeconds: 10,
      memoryBytes: 512 * 1024 * 1024,
      runMemoryBytes: 1024 * 1024 * 1024,
      maxProcesses: 32,
      maxFileBytes: 16 * 1024 * 1024,
      maxOutputBytes: 1024 * 1024,
      tmpBytes: 64 * 1024 * 1024,
    });
    expect(publicUrlOf({ ...config, host: '0.0.0.0' })).toBe('http://127.0.0.1:8086');
  });

  it('reads every variable', () => {
    const config = loadCodeAgentConfig({
      FLEET_INTERNAL_TOKEN: TOKEN,
      CODE_AGENT_PORT: '9086',
      CODE_AGENT_PUBLIC_URL: 'http://code-agent:9086/',
      CODE_AGENT_ALLOW_UNAPPROVED: 'true',
      CODE_AGENT_SANDBOX: 'unsandboxed',
      CODE_AGENT_BWRAP_PATH: '/opt/bwrap',
      CODE_AGENT_PYTHON: '/opt/py/bin/python3',
      CODE_AGENT_SANDBOX_READ_ONLY_PATHS: '/opt/py, /opt/data',
      CODE_AGENT_TIMEOUT_MS: '5000',
      CODE_AGENT_CPU_SECONDS: '3',
      CODE_AGENT_MEMORY_LIMIT: '256mb',
      CODE_AGENT_RUN_MEMORY_LIMIT: '768mb',
      CODE_AGENT_CGROUP: 'required',
      CODE_AGENT_MAX_PROCESSES: '8',
      CODE_AGENT_MAX_FILE_SIZE: '2mb',
      CODE_AGENT_MAX_OUTPUT: '64kb',
      CODE_AGENT_TMP_SIZE: '8mb',
      CODE_AGENT_WORK_ROOT: '/var/lib/code-agent',
      CODE_AGENT_SANDBOX_FIRST_UID: '70000',
      CODE_AGENT_MAX_CONCURRENT_RUNS: '2',
      CODE_AGENT_MAX_ATTEMPTS: '1',
      CODE_AGENT_APPROVAL_TTL_SECONDS: '60',
    });
    expect(config).toMatchObject({
      port: 9086,
      allowUnapproved: true,
      sandbox: 'unsandboxed',
      bwrapPath: '/opt/bwrap',
      python: '/opt/py/bin/python3',
      extraReadOnlyPaths: ['/opt/py', '/opt/data'],
      workRoot: '/var/lib/code-agent',
      firstUid: 70000,
      maxConcurrentRuns: 2,
      maxAttempts: 1,
      approvalTtlSeconds: 60,
      cgroup: 'required',
    });
    expect(sandboxLimits(config)).toEqual({
      wallClockMs: 5000,
      cpuSeconds: 3,
      memoryBytes: 256 * 1024 * 1024,
      runMemoryBytes: 768 * 1024 * 1024,
      maxProcesses: 8,
      maxFileBytes: 2 * 1024 * 1024,
      maxOutputBytes: 64 * 1024,
      tmpBytes: 8 * 1024 * 1024,
    });
    expect(publicUrlOf(config)).toBe('http://code-agent:9086');
  });

  it('still reads the public URL under its earlier name, CODE_AGENT_URL, and says it is deprecated', () => {
    const deprecated: [string, string][] = [];
    const config = loadCodeAgentConfig(
      { FLEET_INTERNAL_TOKEN: TOKEN, CODE_AGENT_URL: 'http://code-agent:9086/' },
      { onDeprecated: (used, current) => deprecated.push([used, current]) },
    );
    expect(publicUrlOf(config)).toBe('http://code-agent:9086');
    expect(deprecated).toEqual([['CODE_AGENT_URL', 'CODE_AGENT_PUBLIC_URL']]);
  });

  it('fails naming every bad variable', () => {
    const load = () =>
      loadCodeAgentConfig({
        CODE_AGENT_SANDBOX: 'none',
        CODE_AGENT_ALLOW_UNAPPROVED: 'sometimes',
        CODE_AGENT_MEMORY_LIMIT: 'lots',
        CODE_AGENT_RUN_MEMORY_LIMIT: 'plenty',
        CODE_AGENT_CGROUP: 'v3',
      });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/FLEET_INTERNAL_TOKEN/);
    expect(load).toThrow(/CODE_AGENT_SANDBOX/);
    expect(load).toThrow(/CODE_AGENT_ALLOW_UNAPPROVED/);
    expect(load).toThrow(/CODE_AGENT_MEMORY_LIMIT/);
    expect(load).toThrow(/CODE_AGENT_RUN_MEMORY_LIMIT/);
    expect(load).toThrow(/CODE_AGENT_CGROUP/);
  });
});
