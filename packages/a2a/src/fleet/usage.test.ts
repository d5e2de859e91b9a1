import { describe, expect, it } from '@jest/globals';
import { runUsageSchema } from './conventions';
import {
  addStepUsage,
  readReportedUsage,
  readUsageFromParts,
  stepUsage,
  sumRunUsage,
  usageKnown,
} from './usage';

const usage = (promptTokens: number, completionTokens: number, calls = 1) => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
  calls,
  unknownCalls: 0,
});

describe('readReportedUsage', () => {
  it('reads the fleet’s own shape as it was sent', () => {
    expect(
      readReportedUsage({
        usage: { promptTokens: 5, completionTokens: 2, totalTokens: 7, calls: 2, unknownCalls: 1 },
      }),
    ).toEqual({ promptTokens: 5, completionTokens: 2, totalTokens: 7, calls: 2, unknownCalls: 1 });
  });

  it('accepts OpenAI’s snake_case and fills in what a sender left out', () => {
    expect(readReportedUsage({ usage: { prompt_tokens: 12, completion_tokens: 3 } })).toEqual(
      usage(12, 3),
    );
    expect(readReportedUsage({ usage: { promptTokens: 0, completionTokens: 0 } })).toEqual(
      usage(0, 0, 0),
    );
  });

  it('says nothing about holders without a usable usage', () => {
    expect(readReportedUsage(undefined)).toBeUndefined();
    expect(readReportedUsage({ sessionId: 's' })).toBeUndefined();
    expect(readReportedUsage({ usage: { promptTokens: -1, completionTokens: 2 } })).toBeUndefined();
    expect(readReportedUsage({ usage: 'lots' })).toBeUndefined();
  });
});

describe('readUsageFromParts', () => {
  it('finds usage in a data part beside the text', () => {
    expect(
      readUsageFromParts([
        { text: 'answer' },
        { data: { stopReason: 'done', usage: { promptTokens: 3, completionTokens: 1 } } },
      ]),
    ).toEqual(usage(3, 1));
    expect(readUsageFromParts([{ text: 'answer' }, { data: { sources: [] } }])).toBeUndefined();
  });
});

describe('sumRunUsage', () => {
  it('sums the steps and is complete when every step reported every call', () => {
    const run = sumRunUsage([
      stepUsage({ step: 'planner', agent: 'planner', usage: usage(100, 10) }),
      stepUsage({ step: 'n1', agent: 'web', usage: usage(200, 20, 2) }),
    ]);
    expect(run).toMatchObject({
      promptTokens: 300,
      completionTokens: 30,
      totalTokens: 330,
      calls: 3,
      unknownCalls: 0,
      complete: true,
    });
    expect(runUsageSchema.parse(run)).toEqual(run);
    expect(usageKnown(run)).toBe(true);
  });

  it('is incomplete when a step reported nothing or a call’s usage is unknown', () => {
    const unreported = sumRunUsage([
      stepUsage({ step: 'planner', usage: usage(100, 10) }),
      stepUsage({ step: 'n1', agent: 'sdk', usage: undefined }),
    ]);
    expect(unreported).toMatchObject({ promptTokens: 100, calls: 1, complete: false });
    expect(unreported.steps[1]).toEqual({
      step: 'n1',
      agent: 'sdk',
      promptTokens: 0,
      completionTokens: 0,
      totalTokens: 0,
      calls: 0,
      unknownCalls: 0,
      reported: false,
    });
    const unknownCall = sumRunUsage([
      stepUsage({ step: 'composer', usage: { ...usage(0, 0, 0), unknownCalls: 1 } }),
    ]);
    expect(unknownCall).toMatchObject({ calls: 0, unknownCalls: 1, complete: false });
    expect(usageKnown(unknownCall)).toBe(false);
  });

  it('is complete and knows no count for a run that called no model', () => {
    const offline = sumRunUsage([stepUsage({ step: 'planner', usage: usage(0, 0, 0) })]);
    expect(offline).toMatchObject({ calls: 0, complete: true });
    expect(usageKnown(offline)).toBe(false);
  });
});

describe('addStepUsage', () => {
  it('adds a step reported again to its counts and keeps new steps in order', () => {
    let steps = addStepUsage([], stepUsage({ step: 'planner', usage: usage(10, 1) }));
    steps = addStepUsage(steps, stepUsage({ step: 'n1', usage: usage(20, 2) }));
    steps = addStepUsage(steps, stepUsage({ step: 'planner', usage: usage(30, 3) }));
    expect(steps.map((step) => step.step)).toEqual(['planner', 'n1']);
    expect(steps[0]).toMatchObject({ promptTokens: 40, completionTokens: 4, calls: 2 });
    steps = addStepUsage(steps, stepUsage({ step: 'n1', usage: undefined }));
    expect(steps[1]).toMatchObject({ promptTokens: 20, reported: false });
  });
});
