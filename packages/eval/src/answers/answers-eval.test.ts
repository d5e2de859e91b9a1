import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { ANSWER_GOAL, loadAnswerCases, runAnswersEval } from '.';
import type { PartCase } from './answer-cases';
import { evaluateAnswers } from './evaluate-answers';
import { formatAnswerReport, share, summarizeAnswers } from './format-answer-report';

const SLOW = 120_000;

describe('evaluateAnswers', () => {
  it(
    `gets at least ${ANSWER_GOAL} of the held-out questions right offline`,
    async () => {
      const cases = await loadAnswerCases();
      const run = await evaluateAnswers({ cases, environment: {} });
      const summary = summarizeAnswers(run.outcomes);
      console.log(formatAnswerReport({ run, goal: ANSWER_GOAL }));
      expect(run.mode).toBe('offline');
      expect(run.documents).toHaveLength(7);
      expect(run.outcomes.every((outcome) => outcome.answeredBy === 'extractive')).toBe(true);
      expect(share(summary.parts['held-out'])).toBeGreaterThanOrEqual(ANSWER_GOAL);
    },
    SLOW,
  );

  describe('with an upstream (--llm)', () => {
    let llm: ScriptedOpenAI;

    beforeAll(async () => {
      llm = await startScriptedOpenAI({
        respond: (_recorded, context) => {
          // Re-ranking asks for JSON; every passage is as good as the next.
          if (context.jsonMode) return { json: { scores: [] } };
          if (context.lastUserMessage.includes('password')) {
            return { content: 'Passwords must be at least 14 characters long [1].' };
          }
          return { content: 'The documents do not say [1].' };
        },
      });
    }, SLOW);
    afterAll(() => llm.close());

    it(
      'answers through the upstream and checks its answers for the facts',
      async () => {
        const cases: PartCase[] = [
          {
            id: 'password',
            part: 'held-out',
            document: 'security-policy.docx',
            phrasing: 'reworded',
            question: 'How many characters does a password need?',
            facts: ['14 characters'],
          },
          {
            id: 'laptop',
            part: 'tuning',
            document: 'employee-handbook.md',
            phrasing: 'indirect',
            question: 'How often do we get a new laptop?',
            facts: ['three years'],
          },
        ];
        const run = await evaluateAnswers({
          cases,
          environment: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-test' },
        });
        expect(run.mode).toBe('llm');
        expect(run.upstream?.baseURL).toBe(llm.baseURL);
        expect(run.outcomes.map((outcome) => outcome.answeredBy)).toEqual(['llm', 'llm']);
        expect(run.outcomes.map((outcome) => outcome.missing)).toEqual([[], ['three years']]);
        expect(llm.requests.some((request) => request.path.endsWith('/embeddings'))).toBe(true);
        expect(formatAnswerReport({ run, goal: ANSWER_GOAL })).toMatch(
          /with upstream http:\/\/127\.0\.0\.1:\d+\/v1 .*\n[\s\S]*\[tuning\] laptop .*\n {2}missing: "three years"/,
        );
      },
      SLOW,
    );
  });
});

describe('runAnswersEval', () => {
  it('says so and exits 2 when --llm finds no upstream configured', async () => {
    const saved = { key: process.env['OPENAI_API_KEY'], url: process.env['OPENAI_BASE_URL'] };
    delete process.env['OPENAI_API_KEY'];
    delete process.env['OPENAI_BASE_URL'];
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    };
    try {
      expect(await runAnswersEval(['--llm'])).toBe(2);
    } finally {
      process.stderr.write = write;
      if (saved.key !== undefined) process.env['OPENAI_API_KEY'] = saved.key;
      if (saved.url !== undefined) process.env['OPENAI_BASE_URL'] = saved.url;
    }
    expect(written.join('')).toMatch(/No upstream LLM is configured/);
  });
});
