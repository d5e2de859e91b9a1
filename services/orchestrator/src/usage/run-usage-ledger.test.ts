import { describe, expect, it } from '@jest/globals';
import { stepUsage, type StepUsage } from '@fleet/a2a';
import { recordUsage } from '@fleet/llm';
import { createRunUsageLedger } from './run-usage-ledger';

const usage = (promptTokens: number, completionTokens: number) => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
  calls: 1,
  unknownCalls: 0,
});

describe('createRunUsageLedger', () => {
  it('sums agent steps and the orchestrator’s own calls into the run’s usage', async () => {
    const changes: StepUsage[][] = [];
    const ledger = createRunUsageLedger({ onChange: (steps) => changes.push(steps) });
    ledger.report({ step: 'planner', agent: 'planner', usage: usage(100, 10) });
    ledger.report({ step: 'n1', agent: 'web', usage: usage(200, 20) });
    const answer = await ledger.measure('composer', async () => {
      await Promise.resolve();
      recordUsage({ promptTokens: 300, completionTokens: 30, totalTokens: 330 });
      return 'composed';
    });
    expect(answer).toBe('composed');
    expect(ledger.usage()).toMatchObject({
      promptTokens: 600,
      completionTokens: 60,
      totalTokens: 660,
      calls: 3,
      unknownCalls: 0,
      complete: true,
    });
    expect(ledger.usage().steps.map((step) => step.step)).toEqual(['planner', 'n1', 'composer']);
    expect(changes).toHaveLength(3);
  });

  it('adds a re-plan to the planner step and marks an unreported node', () => {
    const ledger = createRunUsageLedger();
    ledger.report({ step: 'planner', agent: 'planner', usage: usage(100, 10) });
    ledger.report({ step: 'planner', agent: 'planner', usage: usage(50, 5) });
    ledger.report({ step: 'n1', agent: 'sdk-agent', usage: undefined });
    const run = ledger.usage();
    expect(run.steps[0]).toMatchObject({ step: 'planner', promptTokens: 150, calls: 2 });
    expect(run.steps[1]).toMatchObject({ step: 'n1', reported: false, calls: 0 });
    expect(run).toMatchObject({ promptTokens: 150, complete: false });
  });

  it('lists an own step only when it called a model, and counts a failed one', async () => {
    const ledger = createRunUsageLedger();
    await ledger.measure('composer', () => Promise.resolve('offline'));
    await expect(
      ledger.measure('approval-instructions', async () => {
        await Promise.resolve();
        recordUsage(undefined);
        throw new Error('the classifier failed');
      }),
    ).rejects.toThrow('the classifier failed');
    expect(ledger.usage().steps).toEqual([
      {
        step: 'approval-instructions',
        promptTokens: 0,
        completionTokens: 0,
        totalTokens: 0,
        calls: 0,
        unknownCalls: 1,
        reported: true,
      },
    ]);
    expect(ledger.usage().complete).toBe(false);
  });

  it('goes on from the steps a resumed session recorded', () => {
    const ledger = createRunUsageLedger({
      recorded: [stepUsage({ step: 'planner', agent: 'planner', usage: usage(100, 10) })],
    });
    ledger.report({ step: 'n1', agent: 'web', usage: usage(1, 1) });
    expect(ledger.usage()).toMatchObject({ totalTokens: 112, calls: 2 });
  });
});
