import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { CODE_INSTRUCTIONS, writeCodeWithLlm } from './write-code-with-llm';

describe('writeCodeWithLlm', () => {
  let llm: ScriptedOpenAI;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startScriptedOpenAI();
    client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
  });
  afterAll(() => llm.close());

  it('tells the model the current date and time before its instructions', async () => {
    llm.enqueue({ content: '```python\nprint("2026-11-28")\n```' });
    const code = await writeCodeWithLlm({
      client,
      model: 'code-model',
      request: { task: 'Print how many days are left until New Year', dependencyOutputs: {} },
      clock: () => new Date('2026-11-28T01:40:00Z'),
    });
    expect(code).toContain('print("2026-11-28")');
    const body = llm.requests.at(-1)?.body as { messages: { role: string; content: string }[] };
    expect(body.messages[0]).toEqual({
      role: 'system',
      content: `Current date and time: 2026-11-28 (Saturday), 01:40 UTC.\n${CODE_INSTRUCTIONS}`,
    });
  });
});
