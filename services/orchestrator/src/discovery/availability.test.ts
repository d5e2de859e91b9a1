import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { textPart, type AgentExtension } from '@fleet/a2a';
import type { RunningServer } from '@fleet/http';
import { startSdkAgent, type SdkAgent } from '@fleet/testing';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import type { InvokeAgentRequest, NodeOutcome } from '../execution';
import { answering, startTestAgent } from '../test-support/start-test-agent';
import { createAgentDirectory, type DiscoveryLogger } from './agent-directory';
import { guardAvailability } from './guard-availability';
import { AVAILABILITY_EXTENSION_URI } from './read-availability';

const TOKEN = 'test-internal-token-0123456789';
const keyPrefix = `test:orchestrator-availability:${randomUUID()}:`;
const MAILBOX = 'No mailbox is configured: set MAIL_IMAP_HOST and/or MAIL_SMTP_HOST.';
const NO_SEARCH = 'No web search provider is configured: set WEB_SEARCH_PROVIDER.';

const availability = (params: unknown): AgentExtension => ({
  uri: AVAILABILITY_EXTENSION_URI,
  description: 'Whether the agent can do its work now.',
  required: false,
  params: params as Record<string, unknown>,
});

const never: AgentExecutor = {
  execute: () => Promise.reject(new Error('not called in these tests')),
  cancelTask: () => Promise.resolve(),
};

function recordingLogger(): DiscoveryLogger & { warnings: { url?: string; reason?: string }[] } {
  const warnings: { url?: string; reason?: string }[] = [];
  return {
    warnings,
    info: () => undefined,
    debug: () => undefined,
    warn: (object) => warnings.push(object),
  };
}

describe('discovery of availability', () => {
  let redis: Redis;
  const fleet: Record<string, RunningServer> = {};
  const sdk: Record<string, SdkAgent> = {};

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    const done = answering(() => [
      { type: 'artifact', artifact: { name: 'result', parts: [textPart('ok')] } },
    ]);
    fleet['mail'] = await startTestAgent({
      name: 'mail-agent',
      execute: done,
      token: TOKEN,
      skills: [
        { id: 'search', name: 'Search', description: 'searches mail' },
        { id: 'send', name: 'Send', description: 'sends mail' },
      ],
      extensions: [availability({ state: 'unconfigured', reason: MAILBOX })],
    });
    fleet['web'] = await startTestAgent({
      name: 'web-agent',
      execute: done,
      token: TOKEN,
      skills: [
        { id: 'web-search', name: 'Search', description: 'searches the web' },
        { id: 'read-page', name: 'Read', description: 'reads a page' },
      ],
      extensions: [
        availability({
          state: 'degraded',
          reason: NO_SEARCH,
          unavailableSkills: ['web-search', 'not-on-the-card'],
          extra: 'dropped',
        }),
      ],
    });
    const skills = [{ id: 'pay', tags: ['invoice'] }];
    sdk['plain'] = await startSdkAgent({
      name: 'plain-agent',
      description: 'Says nothing about availability.',
      skills,
      executor: never,
      token: TOKEN,
    });
    sdk['declaring'] = await startSdkAgent({
      name: 'invoice-agent',
      description: 'Pays invoices.',
      skills,
      executor: never,
      token: TOKEN,
      extensions: [
        { uri: 'urn:example:other-extension', params: { anything: true } },
        availability({ state: 'unconfigured', reason: 'Set INVOICE_BANK_ACCOUNT.' }),
      ],
    });
    sdk['malformed'] = await startSdkAgent({
      name: 'odd-agent',
      description: 'Declares availability wrongly.',
      skills,
      executor: never,
      token: TOKEN,
      extensions: [availability({ state: 'on-fire', unavailableSkills: 'pay' })],
    });
  });

  afterAll(async () => {
    await Promise.all(Object.values(fleet).map((server) => server.shutdown()));
    await Promise.all(Object.values(sdk).map((agent) => agent.stop()));
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('reads the extension into the summaries, ignores a malformed one with a log line, never drops an agent for it', async () => {
    const logger = recordingLogger();
    const urls = [
      fleet['mail']?.url,
      fleet['web']?.url,
      sdk['plain']?.url,
      sdk['declaring']?.url,
      sdk['malformed']?.url,
    ].map((url) => url ?? '');
    const directory = createAgentDirectory({ urls, redis, token: TOKEN, keyPrefix, logger });
    const agents = await directory.availableAgents();
    const byName = Object.fromEntries(agents.map((agent) => [agent.name, agent]));

    expect(agents.map((agent) => agent.name)).toEqual([
      'mail-agent',
      'web-agent',
      'plain-agent',
      'invoice-agent',
      'odd-agent',
    ]);
    expect(byName['mail-agent']?.summary.availability).toEqual({
      state: 'unconfigured',
      reason: MAILBOX,
    });
    // Unknown params are dropped; a skill the card does not have is left out.
    expect(byName['web-agent']?.summary.availability).toEqual({
      state: 'degraded',
      reason: NO_SEARCH,
      unavailableSkills: ['web-search'],
    });
    expect(byName['plain-agent']?.summary.availability).toBeUndefined();
    expect(byName['plain-agent']?.availability).toBeUndefined();
    expect(byName['invoice-agent']?.availability).toEqual({
      state: 'unconfigured',
      reason: 'Set INVOICE_BANK_ACCOUNT.',
    });
    expect(byName['odd-agent']?.availability).toBeUndefined();
    expect(byName['odd-agent']?.summary.availability).toBeUndefined();

    const malformed = logger.warnings.filter((warning) => warning.url === sdk['malformed']?.url);
    expect(malformed).toHaveLength(1);
    expect(malformed[0]?.reason).toMatch(/availability extension .* is malformed and ignored/);
    expect(malformed[0]?.reason).toContain('state');
    expect(logger.warnings).toHaveLength(1);

    // From the card cache the same, and the malformed one is not logged again.
    await directory.refresh();
    expect(logger.warnings).toHaveLength(1);
    expect((await directory.findAgent('web-agent'))?.availability?.state).toBe('degraded');
    directory.close();
  });

  it('fails a step for an unconfigured agent or an unavailable skill without calling the agent', async () => {
    const directory = createAgentDirectory({
      urls: [fleet['mail']?.url ?? '', fleet['web']?.url ?? '', sdk['plain']?.url ?? ''],
      redis,
      token: TOKEN,
      keyPrefix,
      logger: recordingLogger(),
    });
    const sent: string[] = [];
    const invoke = guardAvailability({
      invokeAgent: (request) => {
        sent.push(request.node.id);
        return Promise.resolve({ status: 'completed', summary: 'done' } satisfies NodeOutcome);
      },
      findAgent: (name) => directory.findAgent(name),
    });
    const request = ({
      id,
      agent,
      skill,
      existing,
    }: {
      id: string;
      agent: string;
      skill?: string;
      existing?: boolean;
    }): InvokeAgentRequest => ({
      node: { id, agent, task: 'do it', dependsOn: [], ...(skill === undefined ? {} : { skill }) },
      input: {
        fleet: {
          sessionId: 's',
          nodeId: id,
          tenant: 't',
          dependencyOutputs: {},
          entities: {},
          memory: [],
        },
      },
      attempt: 1,
      signal: new AbortController().signal,
      ...(existing === true ? { existingTask: { taskId: 'task-1' } } : {}),
    });

    await expect(
      invoke(request({ id: 'mail-1', agent: 'mail-agent', skill: 'search' })),
    ).resolves.toEqual({
      status: 'failed',
      error: `mail-agent is not configured, so the step was not sent to it: ${MAILBOX}`,
      retryable: false,
    });
    await expect(
      invoke(request({ id: 'web-1', agent: 'web-agent', skill: 'web-search' })),
    ).resolves.toEqual({
      status: 'failed',
      error: `web-agent cannot do "web-search" now, so the step was not sent to it: ${NO_SEARCH}`,
      retryable: false,
    });
    expect(sent).toEqual([]);

    // What still works is sent: another skill, no skill on a degraded agent, an agent that does
    // not say, and the continuation of a task the agent has.
    await invoke(request({ id: 'web-2', agent: 'web-agent', skill: 'read-page' }));
    await invoke(request({ id: 'web-3', agent: 'web-agent' }));
    await invoke(request({ id: 'plain-1', agent: 'plain-agent', skill: 'pay' }));
    await invoke(request({ id: 'mail-2', agent: 'mail-agent', skill: 'search', existing: true }));
    expect(sent).toEqual(['web-2', 'web-3', 'plain-1', 'mail-2']);
    directory.close();
  });
});
