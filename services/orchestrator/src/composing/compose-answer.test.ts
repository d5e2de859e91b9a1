import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { createRecordingTracer, startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import {
  composeAnswer,
  composeOffline,
  describeStep,
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

describe('failedStepsParagraph (whose failure)', () => {
  it('says a step the fleet could not get done is not the request’s fault, and to try again', () => {
    expect(
      failedStepsParagraph(
        [
          {
            id: 'look',
            agent: 'web-agent',
            task: 'Search the web',
            state: 'failed',
            failure: 'fleet',
            error: 'connect ECONNREFUSED 127.0.0.1:8084',
          },
          {
            id: 'mail',
            agent: 'mail-agent',
            task: 'Read the mailbox',
            state: 'failed',
            failure: 'task',
            error: 'No mailbox is configured: set MAIL_IMAP_HOST …, then restart the mail agent.',
          },
        ],
        'prose',
      ),
    ).toBe(
      'Steps that failed: Search the web (on the web): connect ECONNREFUSED 127.0.0.1:8084 (because of the fleet, not your request: try again later); Read the mailbox (in your mailbox): No mailbox is configured: set MAIL_IMAP_HOST …, then restart the mail agent.',
    );
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
        '**Send the report to Carol (in your mailbox)**, as changed by the approver\nSent to Carol.',
        'Steps that were not done: Post it online (on the web): approval timed out.',
      ].join('\n\n'),
    );
  });

  it('puts each step under what it did, one source list, and the failed steps', () => {
    const answer = composeOffline({ request: 'Plan my trip to Paris', steps });
    expect(answer.composer).toBe('offline');
    expect(answer.text).toBe(
      [
        'Here is what the agents found (2 of 3 steps succeeded).',
        '**Search the web (on the web)**\nParis is the capital of France [1].',
        '**Search the documents (in your documents)**\nThe travel policy caps hotels at 200 EUR [2].',
        'Sources\n[1] Paris — https://en.wikipedia.org/wiki/Paris\n[2] Travel policy — doc://policy',
        'Steps that failed: Mail the summary (in your mailbox): needs approval (not supported yet).',
      ].join('\n\n'),
    );
    expect(answer.citations.map((citation) => citation.agent)).toEqual(['web-agent', 'rag-agent']);
  });

  it('says that a reviewer’s instructions could not be followed without a model', () => {
    const answer = composeOffline({
      request: 'Plan my trip to Paris',
      steps,
      feedback: '  Only the\nhotel prices ',
    });
    expect(answer.text.split('\n\n').slice(0, 2)).toEqual([
      'Here is what the agents found (2 of 3 steps succeeded).',
      'A reviewer asked: "Only the hotel prices". Without a language model this answer is put together from the agents’ results, so it could not be rewritten as asked.',
    ]);
    expect(composeOffline({ request: 'x', steps, feedback: '  ' }).text).toBe(
      composeOffline({ request: 'x', steps }).text,
    );
  });

  it('says plainly when nothing succeeded', () => {
    const answer = composeOffline({ request: 'x', steps: [steps[2] as ComposeStep] });
    expect(answer.text).toBe(
      'The only step of this request failed.\n\nSteps that failed: Mail the summary (in your mailbox): needs approval (not supported yet).',
    );
    expect(answer.citations).toEqual([]);
  });
});

describe('describeStep', () => {
  it('says what a step did and where, in words, without node ids', () => {
    expect(describeStep({ agent: 'rag-agent', task: 'find the travel policy.' })).toBe(
      'Find the travel policy (in your documents)',
    );
    expect(describeStep({ agent: 'code-agent', task: 'Plot the sales' })).toBe(
      'Plot the sales (with code)',
    );
    expect(describeStep({ agent: 'invoice', task: 'Pay the invoice' })).toBe(
      'Pay the invoice (by the invoice agent)',
    );
    expect(describeStep({ agent: 'reasoning-agent', task: '  ' })).toBe('A step by reasoning');
  });

  it('keeps node ids out of the offline answer, citations and sections included', () => {
    const answer = composeOffline({
      request: 'Trip',
      steps: [
        { ...(steps[0] as ComposeStep), id: 'web-agent-1' },
        { ...(steps[1] as ComposeStep), id: 'rag-agent-1' },
        { ...(steps[2] as ComposeStep), id: 'mail-agent-1' },
        { id: 'code-agent-1', agent: 'code-agent', task: 'Run it', state: 'rejected' },
      ],
    });
    expect(answer.text).not.toMatch(/-agent-1|\(rag-agent\)|\(web-agent\)/);
    expect(answer.text).toContain('[2] Travel policy — doc://policy');
    expect(answer.text).toContain(
      'Steps that were not done: Run it (with code): its approval was denied.',
    );
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

  it('gives the LLM a reviewer’s instructions for the answer, and none when there are none', async () => {
    upstream.enqueue({ content: 'Hotels are capped at 200 EUR [2].' });
    await composeAnswer({
      request: 'Plan my trip',
      steps,
      llm: { client, model: 'scripted-model' },
      feedback: 'Only the hotel prices',
    });
    const [system, user] = (upstream.requests.at(-1)?.body as { messages: { content: string }[] })
      .messages;
    expect(system?.content).toContain('A reviewer read a previous answer to this request');
    expect(user?.content).toMatch(
      /The reviewer's instructions for this answer:\nOnly the hotel prices$/,
    );
    upstream.enqueue({ content: 'Paris [1].' });
    await composeAnswer({
      request: 'Plan my trip',
      steps,
      llm: { client, model: 'scripted-model' },
    });
    expect(JSON.stringify(upstream.requests.at(-1)?.body)).not.toContain('reviewer');
  });

  it('gives the LLM each failed step’s own reason, asks it to say what the person can do, and appends them', async () => {
    const failedRun: ComposeStep[] = [
      {
        id: 'run',
        agent: 'code-agent',
        task: 'Run the given Python program',
        state: 'failed',
        failure: 'task',
        error:
          'Stopped: it tried to use more than the 512 MiB memory limit (MemoryError). Use less memory, or ask an operator to raise CODE_AGENT_MEMORY_LIMIT.',
      },
    ];
    upstream.enqueue({ content: 'Your program ran out of memory, so it printed nothing.' });
    const answer = await composeAnswer({
      request: 'Run this and tell me what it prints',
      steps: failedRun,
      llm: { client, model: 'scripted-model' },
    });
    const body = upstream.requests.at(-1)?.body as { messages: { content: string }[] };
    expect(body.messages[0]?.content).toContain('what the person can do about it');
    expect(body.messages[1]?.content).toContain(
      'Steps that failed: run (code-agent): Stopped: it tried to use more than the 512 MiB memory limit',
    );
    expect(answer.text).toBe(
      [
        'Your program ran out of memory, so it printed nothing.',
        'Steps that failed: run (code-agent): Stopped: it tried to use more than the 512 MiB memory limit (MemoryError). Use less memory, or ask an operator to raise CODE_AGENT_MEMORY_LIMIT.',
      ].join('\n\n'),
    );
  });

  it('tells the LLM the current date and time, from the clock it is given', async () => {
    upstream.enqueue({ content: 'It is Saturday.' });
    await composeAnswer({
      request: 'What day is it?',
      steps: [
        { id: 'a', agent: 'web-agent', task: 'Look it up', state: 'completed', summary: 'x' },
      ],
      llm: { client, model: 'scripted-model' },
      clock: () => new Date('2026-11-28T01:40:00Z'),
    });
    const body = upstream.requests.at(-1)?.body as { messages: { content: string }[] };
    expect(body.messages[0]?.content).toMatch(
      /^Current date and time: 2026-11-28 \(Saturday\), 01:40 UTC\.\n/,
    );
  });

  it('gives the LLM a step’s table as Markdown, cut, and tells it to keep the table', async () => {
    const rows = Array.from({ length: 30 }, (_, index) => [`m${index}`, index]);
    upstream.enqueue({ content: 'Sales by month:' });
    await composeAnswer({
      request: 'Sales by month?',
      steps: [
        {
          id: 'sales',
          agent: 'sheets-agent',
          task: 'Sum sales by month',
          state: 'completed',
          summary: 'Here are the sales.',
          data: { table: { columns: ['month', 'sales'], rows } },
        },
        steps[0]!,
      ],
      llm: { client, model: 'scripted-model' },
      tableRows: 3,
    });
    const body = upstream.requests.at(-1)?.body as { messages: { content: string }[] };
    expect(body.messages[0]?.content).toContain('keep that table in your answer exactly as given');
    expect(body.messages[1]?.content).toContain(
      '**sales** (sheets-agent)\nHere are the sales.\n\n| month | sales |\n| --- | --- |\n| m0 | 0 |\n| m1 | 1 |\n| m2 | 2 |\n\nfirst 3 of 30 rows',
    );
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

  it('streams the model’s tokens as they come, and ends with the same text as a whole answer', async () => {
    const content = '  Paris is the capital [1]; hotels are capped at 200 EUR [2].  ';
    upstream.enqueue({ content, chunkSize: 3, chunkDelayMs: 5 });
    const pieces: string[] = [];
    const answer = await composeAnswer({
      request: 'Plan my trip',
      steps,
      llm: { client, model: 'scripted-model' },
      onText: (text) => pieces.push(text),
    });
    expect(pieces.length).toBeGreaterThan(5);
    // Every piece is the start of the final text: the body, trimmed, before the sections.
    expect(pieces.join('')).toBe(content.trim());
    expect(answer.text.startsWith(pieces.join(''))).toBe(true);
    // No piece ends inside a marker: `[1` waits for its `]`.
    for (const piece of pieces) expect(piece).not.toMatch(/\[\d*$/);
    expect(answer.text).toBe(
      [
        content.trim(),
        'Sources\n[1] Paris — https://en.wikipedia.org/wiki/Paris\n[2] Travel policy — doc://policy',
        'Steps that failed: mail (mail-agent): needs approval (not supported yet).',
      ].join('\n\n'),
    );
    const body = upstream.requests.at(-1)?.body as Record<string, unknown>;
    expect(body['stream']).toBe(true);
    expect(body['stream_options']).toEqual({ include_usage: true });
  });

  it('keeps the LLM span’s token counts, and takes a server that sends no usage', async () => {
    const { tracer, spans } = createRecordingTracer();
    const llm = { client, model: 'scripted-model' };
    upstream.enqueue({ content: 'Paris [1].', usage: { prompt_tokens: 42, completion_tokens: 7 } });
    await composeAnswer({ request: 'Trip', steps, llm, tracer });
    upstream.enqueue({ content: 'Paris [1].', usage: false });
    const noUsage = await composeAnswer({ request: 'Trip', steps, llm, tracer });
    expect(noUsage.composer).toBe('llm');
    const [counted, uncounted] = spans.filter((span) => span.name === 'orchestrator.compose');
    expect(counted?.attributes['llm.token_count.prompt']).toBe(42);
    expect(counted?.attributes['llm.token_count.completion']).toBe(7);
    expect(counted?.attributes['output.value']).toContain('Paris [1].\n\nSources');
    expect(uncounted?.attributes['llm.token_count.prompt']).toBeUndefined();
  });

  it('keeps what was shown when the stream breaks, then answers offline', async () => {
    upstream.enqueue({
      content: 'Paris is the capital of France [1] and more text follows',
      chunkSize: 4,
      streamError: { afterChunks: 4 },
    });
    const pieces: string[] = [];
    const answer = await composeAnswer({
      request: 'Plan my trip',
      steps,
      llm: { client, model: 'scripted-model' },
      onText: (text) => pieces.push(text),
    });
    const shown = pieces.join('');
    expect(shown).not.toBe('');
    expect(answer.composer).toBe('offline');
    expect(answer.text).toBe(
      [
        shown,
        '(The written answer was cut off; here is what the agents found.)',
        composeOffline({ request: 'Plan my trip', steps }).text,
      ].join('\n\n'),
    );
  });

  it('keeps a single streamed step’s answer as it is, with its own sources', async () => {
    const single: ComposeStep = {
      id: 'docs',
      agent: 'rag-agent',
      task: 'Search the documents',
      state: 'completed',
      summary: 'Hotels are capped [1]; trains are second class [2].',
      data: {
        sources: [{ title: 'Travel policy', url: 'doc://policy' }, { title: 'Rail rules' }],
      },
    };
    const before = upstream.requests.length;
    const answer = await composeAnswer({
      request: 'Travel rules?',
      steps: [single],
      llm: { client, model: 'scripted-model' },
      streamedStep: 'docs',
    });
    expect(upstream.requests.length).toBe(before); // no model call
    expect(answer.text).toBe(
      'Hotels are capped [1]; trains are second class [2].\n\nSources\n[1] Travel policy — doc://policy\n[2] Rail rules',
    );
    expect(answer.citations).toEqual([
      { title: 'Travel policy', url: 'doc://policy', agent: 'rag-agent' },
      { title: 'Rail rules', agent: 'rag-agent' },
    ]);
  });
});
