import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { runPlannerEval } from './index';
import { loadPlannerCases } from './planner-cases';
import { OFFLINE_GOALS } from './render-report';
import type { PlannerEvalSummary } from './run-planner-eval';

function capture(): { write(text: string): boolean; text: () => string } {
  const chunks: string[] = [];
  return {
    write(text: string) {
      chunks.push(text);
      return true;
    },
    text: () => chunks.join(''),
  };
}

interface JsonReport {
  summary: PlannerEvalSummary;
  missedGoals: string[];
  results: { id: string; right: boolean; source: string; categories: string[]; set: string }[];
}

describe('runPlannerEval', () => {
  it('has at least 150 cases, a fifth of them held out', () => {
    const all = loadPlannerCases({ sets: ['tuning', 'held-out'] });
    const heldOut = all.filter((entry) => entry.set === 'held-out');
    expect(all.length).toBeGreaterThanOrEqual(150);
    expect(heldOut.length / all.length).toBeGreaterThanOrEqual(0.2);
  });

  it('meets the offline goals: 95 % tuning, every single-agent request, the held-out floor', async () => {
    const stdout = capture();
    const code = await runPlannerEval(['--json'], { stdout, stderr: capture(), environment: {} });
    const report = JSON.parse(stdout.text()) as JsonReport;
    const tuning = report.summary.bySet.tuning;
    const heldOut = report.summary.bySet['held-out'];
    expect(tuning && tuning.right / tuning.total).toBeGreaterThanOrEqual(OFFLINE_GOALS.tuning);
    expect(heldOut && heldOut.right / heldOut.total).toBeGreaterThanOrEqual(OFFLINE_GOALS.heldOut);
    const single = report.results.filter(
      (result) =>
        result.set === 'tuning' && result.categories.some((name) => name.startsWith('single:')),
    );
    expect(single.filter((result) => !result.right).map((result) => result.id)).toEqual([]);
    expect(report.missedGoals).toEqual([]);
    expect(code).toBe(0);
  });

  it('prints the share per category and every miss', async () => {
    const stdout = capture();
    await runPlannerEval(['--set', 'tuning'], { stdout, stderr: capture(), environment: {} });
    expect(stdout.text()).toMatch(/single:rag-agent\s+\d+\.\d% \(\d+\/\d+\)/);
    expect(stdout.text()).toMatch(/Misses \(\d+\):|No misses\./);
  });

  it('says clearly that --llm needs an upstream when none is configured', async () => {
    const stderr = capture();
    const code = await runPlannerEval(['--llm'], { stdout: capture(), stderr, environment: {} });
    expect(code).toBe(2);
    expect(stderr.text()).toContain('--llm needs an upstream LLM, and none is configured');
    expect(stderr.text()).toContain('OPENAI_BASE_URL');
  });

  it('rejects an unknown set with a message', async () => {
    const stderr = capture();
    expect(await runPlannerEval(['--set', 'nope'], { stdout: capture(), stderr })).toBe(2);
    expect(stderr.text()).toContain('--set must be tuning, held-out or all');
  });

  describe('with --llm', () => {
    let llm: ScriptedOpenAI;
    beforeAll(async () => {
      // A model that sends every request to the document agent, whole.
      llm = await startScriptedOpenAI({
        respond: (_request, context) => ({
          json: {
            nodes: [
              {
                id: 'docs',
                agent: 'rag-agent',
                skill: 'answer',
                task: context.lastUserMessage,
                dependsOn: [],
              },
            ],
            rationale: 'Everything is in the documents.',
            confidence: 0.5,
          },
        }),
      });
    });
    afterAll(() => llm.close());

    it('plans every request with the LLM planner, with progress, and scores its plans', async () => {
      const stdout = capture();
      const stderr = capture();
      const code = await runPlannerEval(['--llm', '--json', '--set', 'held-out'], {
        stdout,
        stderr,
        environment: {
          OPENAI_BASE_URL: llm.baseURL,
          OPENAI_API_KEY: 'sk-test',
          LLM_MODEL: 'scripted',
        },
      });
      expect(code).toBe(0);
      const report = JSON.parse(stdout.text()) as JsonReport;
      const cases = loadPlannerCases({ sets: ['held-out'] });
      expect(llm.requests.length).toBe(cases.length);
      expect(report.results.every((result) => result.source === 'llm')).toBe(true);
      // Single document questions are right; chains (which need two agents) are not.
      const documentQuestions = cases.filter((entry) =>
        entry.categories.includes('single:rag-agent'),
      );
      expect(report.summary.byCategory['single:rag-agent']?.['held-out']).toEqual({
        right: documentQuestions.length,
        total: documentQuestions.length,
      });
      expect(report.summary.byCategory['chain']?.['held-out']?.right).toBe(0);
      expect(stderr.text()).toContain(`[${cases.length}/${cases.length}]`);
    });
  });
});
