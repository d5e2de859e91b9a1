import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { createMemoryExtractor } from './create-memory-extractor';

describe('createMemoryExtractor', () => {
  let llm: ScriptedOpenAI;
  let client: OpenAI;
  const warnings: string[] = [];
  const logger = { warn: (_object: object, message?: string) => warnings.push(message ?? '') };

  beforeAll(async () => {
    llm = await startScriptedOpenAI();
    client = new OpenAI({ apiKey: 'test-key', baseURL: llm.baseURL, maxRetries: 0 });
  });

  afterAll(async () => {
    await llm.close();
  });

  it('asks the model with strict structured output and returns what it found', async () => {
    llm.enqueue({
      json: {
        found: true,
        name: 'Ada',
        company: 'Kestrel',
        jobTitle: null,
        projects: ['Falcon'],
        tone: null,
        detailLevel: 'brief',
        language: null,
      },
    });
    const before = llm.requests.length;
    const extractor = createMemoryExtractor({ llm: { client, model: 'scripted-model' }, logger });
    const extraction = await extractor.extract({
      message: 'Ada here, from Kestrel; working on Falcon. Short answers please.',
    });
    expect(extraction).toEqual({
      method: 'llm',
      update: {
        facts: { name: 'Ada', company: 'Kestrel', projects: ['Falcon'] },
        preferences: { detailLevel: 'brief' },
      },
    });
    const request = llm.requests[before]?.body as {
      response_format: { type: string; json_schema: { name: string; strict: boolean } };
      messages: { role: string; content: string }[];
    };
    expect(request.response_format.type).toBe('json_schema');
    expect(request.response_format.json_schema).toMatchObject({
      name: 'user_memory',
      strict: true,
    });
    expect(request.messages.at(-1)?.content).toContain('Ada here');
  });

  it('answers with nothing when the model found nothing', async () => {
    llm.enqueue({
      json: {
        found: false,
        name: null,
        company: null,
        jobTitle: null,
        projects: null,
        tone: null,
        detailLevel: null,
        language: null,
      },
    });
    const extractor = createMemoryExtractor({ llm: { client, model: 'scripted-model' } });
    expect(await extractor.extract({ message: 'My name is Ada' })).toEqual({
      method: 'llm',
      update: { facts: {}, preferences: {} },
    });
  });

  it('falls back to the rules when the model fails', async () => {
    llm.enqueue({ error: { status: 500, message: 'upstream broke' } });
    const extractor = createMemoryExtractor({ llm: { client, model: 'scripted-model' }, logger });
    const extraction = await extractor.extract({ message: 'My name is Ada and I work at Kestrel' });
    expect(extraction.method).toBe('rules');
    expect(extraction.fallbackReason).toEqual(expect.any(String));
    expect(extraction.update.facts).toEqual({ name: 'Ada', company: 'Kestrel' });
    expect(warnings).toContain('memory extraction fell back to rules');
  });

  it('falls back to the rules when the model answers something that does not fit', async () => {
    llm.enqueue({ content: 'Sure! Your name is Ada.' });
    const extractor = createMemoryExtractor({ llm: { client, model: 'scripted-model' } });
    const extraction = await extractor.extract({ message: 'Call me Ada' });
    expect(extraction.method).toBe('rules');
    expect(extraction.update.facts.name).toBe('Ada');
  });

  it('falls back to the rules when the model does not answer in time', async () => {
    llm.enqueue({ hang: true });
    const extractor = createMemoryExtractor({
      llm: { client, model: 'scripted-model' },
      timeoutMs: 200,
    });
    const extraction = await extractor.extract({ message: 'Keep it formal' });
    expect(extraction.method).toBe('rules');
    expect(extraction.fallbackReason).toBe('the model did not answer within 200 ms');
    expect(extraction.update.preferences).toEqual({ tone: 'formal' });
  });

  it('does not ask the model about a message with no personal statement or preference', async () => {
    const before = llm.requests.length;
    const extractor = createMemoryExtractor({ llm: { client, model: 'scripted-model' } });
    expect(await extractor.extract({ message: 'Search the web for news about A2A' })).toEqual({
      method: 'rules',
      skippedLlm: true,
      update: { facts: {}, preferences: {} },
    });
    expect(llm.requests.length).toBe(before);
  });

  it('uses the rules offline, without calling anything', async () => {
    const before = llm.requests.length;
    const extractor = createMemoryExtractor();
    expect(await extractor.extract({ message: 'Answer in French please' })).toEqual({
      method: 'rules',
      update: { facts: {}, preferences: { language: 'French' } },
    });
    expect(llm.requests.length).toBe(before);
  });
});
