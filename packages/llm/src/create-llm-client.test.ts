import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ServiceUnavailableError } from '@fleet/errors';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { createLlmClient } from './create-llm-client';
import { resolveUpstream } from './resolve-upstream';

describe('createLlmClient', () => {
  let llm: ScriptedOpenAI;
  beforeAll(async () => {
    llm = await startScriptedOpenAI({ replies: [{ content: 'pong' }] });
  });
  afterAll(() => llm.close());

  it('refuses to build a client in offline mode', () => {
    expect(() => createLlmClient({ upstream: resolveUpstream({}) })).toThrow(
      ServiceUnavailableError,
    );
  });

  it('talks to the configured upstream with its key', async () => {
    const client = createLlmClient({
      upstream: resolveUpstream({ apiKey: 'sk-up', baseURL: llm.baseURL }),
    });
    const completion = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'ping' }],
    });
    expect(completion.choices[0]?.message.content).toBe('pong');
    expect(llm.requests[0]?.headers.authorization).toBe('Bearer sk-up');
  });
});
