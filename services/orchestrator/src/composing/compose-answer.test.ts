import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import {
  composeAnswer,
  composeOffline,
  failedStepsParagraph,
  stepsNotDoneParagraph,
  type ComposeStep,
} from './compose-answer';

const steps: ComposeStep[] = [
  {
    id: 'search',
    agent: 'web-agent',
    task: 'Search the web',
    state: 'completed',
    summary: 'Paris is the capital of France [1].',
    data: { sources: [{ title: 'Paris', url: 'https://en.wikipedia.org/wiki/Paris' }] },
  },
  {
    id: 'docs',
    agent: 'rag-agent',
    task: 'Search the documents',
    state: 'completed',
    summary: 'The travel policy caps hotels at 200 EUR [1].',
    data: { sources: [{ title: 'Travel policy', url: 'doc://policy' }] },
  },
  {
    id: 'mail',
    agent: 'mail-agent',
    task: 'Mail the summary',
    state: 'failed',
    error: 'needs approval (not supported yet)',
  },
];

describe('failedStepsParagraph', () => {
  it('names every step that failed or did not run, with its reason', () => {
    expect(
      failedStepsParagraph([
        ...steps,
        {
          id: 'code',
          agent: 'code-agent',
          task: 'Run it',
          state: 'skipped',
          error: 'the run was canceled.',
        },
        { id: 'other', agent: 'x', task: 'y', state: 'skipped' },
      ]),
    ).toBe(
      'Steps that failed: mail (mail-agent): needs approval (not supported yet); code (code-agent): the run was canceled; other (x): it did not run.',
    );
    expect(failedStepsParagraph(steps.slice(0, 2))).toBe('');
  });
});

describe('stepsNotDoneParagraph', () => {
  it('names the steps whose approval was denied or timed out, with what they would have done', () => {
    const rejected: ComposeStep[] = [
      {
        id: 'send',
        agent: 'mail-agent',
        task: 'Send the report to Bob.',
        state: 'rejected',
        error: 'denied by a person: not today.',
      },
      { id: 'run', agent: 'code-agent', task: 'Run the script', state: 'rejected' },
    ];
    expect(stepsNotDoneParagraph([...steps, ...rejected])).toBe(
      'Steps that were not done: send (mail-agent) — Send the report to Bob: denied by a person: not today; run (code-agent) — Run the script: its approval was denied.',
    );
    expect(failedStepsParagraph(rejected)).toBe('');
    expect(stepsNotDoneParagraph(steps)).toBe('');
  });
});

describe('composeOffline', () => {
  it('says which steps were not done, and how a step changed at approval was carried out', () => {
    const answer = composeOffline({
      request: 'Mail the report',
      steps: [
        {
          id: 'send',
          agent: 'mail-agent',
          task: 'Send the report to Bob',
          effectiveTask: 'Send the report to Carol',
          state: 'completed',
          summary: 'Sent to Carol.',
        },
        {
          id: 'post',
          agent: 'web-agent',
          task: 'Post it online',
          state: 'rejected',
          error: 'approval timed out',
        },
      ],
    });
    expect(answer.text).toBe(
      [
        'Here is what the agents found (1 of 2 steps succeeded).',
        '**send** (mail-agent), carried out as changed at approval: Send the report to Carol\nSent to Carol.',
        'Steps that were not done: post (web-agent) — Post it online: approval timed out.',
      ].join('\n\n'),
    );
  });

  it('puts each step under its name, one source list, and the failed steps', () => {
    const answer = composeOffline({ request: 'Plan my trip to Paris', steps });
    expect(answer.composer).toBe('offline');
    expect(answer.text).toBe(
      [
        'Here is what the agents found (2 of 3 steps succeeded).',
        '**search** (web-agent)\nParis is the capital of France [1].',
        '**docs** (rag-agent)\nThe travel policy caps hotels at 200 EUR [2].',
        'Sources\n[1] Paris — https://en.wikipedia.org/wiki/Paris\n[2] Travel policy — doc://policy',
        'Steps that failed: mail (mail-agent): needs approval (not supported yet).',
      ].join('\n\n'),
    );
    expect(answer.citations.map((citation) => citation.agent)).toEqual(['web-agent', 'rag-agent']);
  });

  it('says plainly when nothing succeeded', () => {
    const answer = composeOffline({ request: 'x', steps: [steps[2] as ComposeStep] });
    expect(answer.text).toBe(
      'The only step of this request failed.\n\nSteps that failed: mail (mail-agent): needs approval (not supported yet).',
    );
    expect(answer.citations).toEqual([]);
  });
});

describe('composeAnswer', () => {
  let upstream: ScriptedOpenAI;
  let client: OpenAI;

  beforeAll(async () => {
    upstream = await startScriptedOpenAI();
    client = new OpenAI({ baseURL: upstream.baseURL, apiKey: 'test', maxRetries: 0 });
  });
  afterAll(async () => {
    await upstream.close();
  });

  it('asks the LLM with renumbered step results, then appends sources and failed steps', async () => {
    upstream.enqueue({ content: 'Paris is the capital [1]; hotels are capped at 200 EUR [2].' });
    const answer = await composeAnswer({
      request: 'Plan my trip',
      steps,
      llm: { client, model: 'scripted-model' },
    });
    expect(answer.composer).toBe('llm');
    expect(answer.text).toBe(
      [
        'Paris is the capital [1]; hotels are capped at 200 EUR [2].',
        'Sources\n[1] Paris — https://en.wikipedia.org/wiki/Paris\n[2] Travel policy — doc://policy',
        'Steps that failed: mail (mail-agent): needs approval (not supported yet).',
      ].join('\n\n'),
    );
    const prompt = JSON.stringify(upstream.requests.at(-1)?.body);
    expect(prompt).toContain('The travel policy caps hotels at 200 EUR [2].');
    expect(prompt).toContain('Plan my trip');
  });

  it('falls back to offline composing when the LLM fails, and logs it', async () => {
    upstream.enqueue({ error: { status: 500, message: 'model crashed' } });
    const warnings: string[] = [];
    const answer = await composeAnswer({
      request: 'Plan my trip',
      steps,
      llm: { client, model: 'scripted-model' },
      logger: { warn: (_object, message) => warnings.push(message ?? '') },
    });
    expect(answer).toEqual(composeOffline({ request: 'Plan my trip', steps }));
    expect(warnings).toHaveLength(1);
  });
});
