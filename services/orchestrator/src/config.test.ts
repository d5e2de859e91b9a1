import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@fleet/errors';
import { loadOrchestratorConfig } from './config';

const TOKEN = 'change-me-internal-token-0000';

describe('loadOrchestratorConfig', () => {
  it('applies the documented defaults', () => {
    expect(loadOrchestratorConfig({ FLEET_INTERNAL_TOKEN: TOKEN })).toMatchObject({
      port: 8081,
      host: '127.0.0.1',
      plannerUrl: 'http://127.0.0.1:8082',
      agentUrls: [],
      nodeTimeoutMs: 120_000,
      nodeMaxAttempts: 3,
      cardCacheTtlSeconds: 60,
      sessionTtlSeconds: 604_800,
      hitlTimeoutSeconds: 120,
      scheduling: 'dependency',
      redisUrl: 'redis://127.0.0.1:6379',
    });
  });

  it('accepts A2A bodies twice the gateway’s default limit plus an envelope, or ORCHESTRATOR_BODY_LIMIT', () => {
    const gatewayDefault = 8 * 1024 * 1024;
    const { bodyLimit } = loadOrchestratorConfig({ FLEET_INTERNAL_TOKEN: TOKEN });
    expect(bodyLimit).toBeGreaterThanOrEqual(2 * gatewayDefault + 1024 * 1024);
    expect(
      loadOrchestratorConfig({ FLEET_INTERNAL_TOKEN: TOKEN, ORCHESTRATOR_BODY_LIMIT: '40mb' })
        .bodyLimit,
    ).toBe(40 * 1024 * 1024);
  });

  it('keeps 32 files of at most 8 MiB, 32 MiB in all, for the session TTL unless told otherwise', () => {
    const defaults = loadOrchestratorConfig({ FLEET_INTERNAL_TOKEN: TOKEN });
    expect(defaults).toMatchObject({
      maxFileBytes: 8 * 1024 * 1024,
      maxRunFiles: 32,
      maxRunFileBytes: 32 * 1024 * 1024,
    });
    expect(defaults.fileTtlSeconds).toBeUndefined();
    expect(
      loadOrchestratorConfig({
        FLEET_INTERNAL_TOKEN: TOKEN,
        ORCHESTRATOR_MAX_FILE_BYTES: '1mb',
        ORCHESTRATOR_MAX_RUN_FILES: '5',
        ORCHESTRATOR_MAX_RUN_FILE_BYTES: '2097152',
        ORCHESTRATOR_FILE_TTL_SECONDS: '3600',
      }),
    ).toMatchObject({
      maxFileBytes: 1024 * 1024,
      maxRunFiles: 5,
      maxRunFileBytes: 2 * 1024 * 1024,
      fileTtlSeconds: 3600,
    });
    expect(() =>
      loadOrchestratorConfig({
        FLEET_INTERNAL_TOKEN: TOKEN,
        ORCHESTRATOR_MAX_RUN_FILE_BYTES: '2gb',
      }),
    ).toThrow(ConfigError);
  });

  it('reviews answers for the HITL time-out, approves them at the time-out and allows 10 rounds unless told otherwise', () => {
    const defaults = loadOrchestratorConfig({ FLEET_INTERNAL_TOKEN: TOKEN });
    expect(defaults.reviewTimeoutSeconds).toBeUndefined();
    expect(defaults).toMatchObject({ reviewOnTimeout: 'approve', maxReviewRounds: 10 });
    expect(
      loadOrchestratorConfig({
        FLEET_INTERNAL_TOKEN: TOKEN,
        ORCHESTRATOR_REVIEW_TIMEOUT_SECONDS: '600',
        ORCHESTRATOR_REVIEW_ON_TIMEOUT: 'fail',
        ORCHESTRATOR_MAX_REVIEW_ROUNDS: '3',
      }),
    ).toMatchObject({ reviewTimeoutSeconds: 600, reviewOnTimeout: 'fail', maxReviewRounds: 3 });
    for (const [name, value] of [
      ['ORCHESTRATOR_REVIEW_ON_TIMEOUT', 'deny'],
      ['ORCHESTRATOR_MAX_REVIEW_ROUNDS', '0'],
      ['ORCHESTRATOR_MAX_REVIEW_ROUNDS', '101'],
      ['ORCHESTRATOR_REVIEW_TIMEOUT_SECONDS', '-5'],
    ] as const) {
      expect(() => loadOrchestratorConfig({ FLEET_INTERNAL_TOKEN: TOKEN, [name]: value })).toThrow(
        ConfigError,
      );
    }
  });

  it('takes 3 hand-offs per run and re-plans once after a failure unless told otherwise', () => {
    expect(loadOrchestratorConfig({ FLEET_INTERNAL_TOKEN: TOKEN })).toMatchObject({
      maxHandoffs: 3,
      replanAfterFailure: true,
    });
    expect(
      loadOrchestratorConfig({
        FLEET_INTERNAL_TOKEN: TOKEN,
        ORCHESTRATOR_MAX_HANDOFFS: '0',
        ORCHESTRATOR_REPLAN_AFTER_FAILURE: 'false',
      }),
    ).toMatchObject({ maxHandoffs: 0, replanAfterFailure: false });
    for (const bad of ['-1', '33', 'many']) {
      expect(() =>
        loadOrchestratorConfig({ FLEET_INTERNAL_TOKEN: TOKEN, ORCHESTRATOR_MAX_HANDOFFS: bad }),
      ).toThrow(ConfigError);
    }
  });

  it('reads AGENT_URLS as a list of base URLs without trailing slashes', () => {
    const config = loadOrchestratorConfig({
      FLEET_INTERNAL_TOKEN: TOKEN,
      AGENT_URLS: ' http://127.0.0.1:8083/ , http://rag:8083,,',
      ORCHESTRATOR_SCHEDULING: 'stages',
    });
    expect(config.agentUrls).toEqual(['http://127.0.0.1:8083', 'http://rag:8083']);
    expect(config.scheduling).toBe('stages');
  });

  it('fails naming every bad variable, without echoing the token', () => {
    let failure: unknown;
    try {
      loadOrchestratorConfig({
        FLEET_INTERNAL_TOKEN: 'short-secret',
        AGENT_URLS: 'ftp://nope',
        ORCHESTRATOR_SCHEDULING: 'waves',
      });
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ConfigError);
    const message = (failure as ConfigError).message;
    expect(message).toMatch(/3 variables to fix/);
    expect(message).toMatch(/FLEET_INTERNAL_TOKEN \(a value \(hidden\)\)/);
    expect(message).toMatch(/AGENT_URLS/);
    expect(message).toMatch(/ORCHESTRATOR_SCHEDULING .*expected dependency or stages/);
    expect(message).not.toContain('short-secret');
  });
});
