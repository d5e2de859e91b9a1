import { describe, expect, it } from '@jest/globals';
import { COMMANDS, runCli } from './cli';
import { collector } from './test-support/output-collector';

async function cli(argv: string[], environment: Record<string, string> = {}) {
  const stdout = collector();
  const stderr = collector();
  const code = await runCli({ argv, environment, stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('runCli', () => {
  it('prints help listing every command for help, --help and no command', async () => {
    for (const argv of [[], ['help'], ['--help'], ['-h']]) {
      const result = await cli(argv);
      expect(result.code).toBe(0);
      for (const command of COMMANDS) expect(result.stdout).toContain(`  ${command.name} `);
      expect(result.stdout).toContain('pnpm fleet up');
    }
  });

  it("prints a command's help for help <command> and <command> --help", async () => {
    for (const argv of [
      ['help', 'logs'],
      ['logs', '--help'],
      ['logs', 'gateway', '-h'],
    ]) {
      const result = await cli(argv);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Usage: pnpm fleet logs');
    }
  });

  it('answers an unknown command with help on stderr and exit code 2', async () => {
    const result = await cli(['launch']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown command: launch');
    expect(result.stderr).toContain('Commands:');
  });

  it('answers an unknown option or a bad value with exit code 2 and a pointer to help', async () => {
    const unknown = await cli(['status', '--verbose'], { FLEET_ROOT: '/nonexistent' });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('See: pnpm fleet status --help');
    const badTimeout = await cli(['up', '--timeout', 'soon'], { FLEET_ROOT: '/nonexistent' });
    expect(badTimeout.code).toBe(2);
    expect(badTimeout.stderr).toContain('--timeout expects a number of seconds');
    const badService = await cli(['up', '--only', 'mailer'], { FLEET_ROOT: '/nonexistent' });
    expect(badService.code).toBe(2);
    expect(badService.stderr).toContain('Unknown service: mailer');
  });

  it('answers restart of an unknown service with exit code 2, listing the valid ones', async () => {
    const result = await cli(['restart', 'planner', 'mailer'], { FLEET_ROOT: '/nonexistent' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'Unknown service: mailer. Known: gateway, orchestrator, planner, rag-agent, web-agent, ' +
        'mail-agent, code-agent, reasoning-agent, tools-agent.',
    );
    expect(result.stderr).toContain('See: pnpm fleet restart --help');
  });

  it('fails with every bad variable named', async () => {
    const result = await cli(['status'], { GATEWAY_PORT: '99999', FLEET_LOCAL_REDIS_URL: 'nope' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('GATEWAY_PORT');
    expect(result.stderr).toContain('FLEET_LOCAL_REDIS_URL');
  });
});
