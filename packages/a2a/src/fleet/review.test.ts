import { describe, expect, it } from '@jest/globals';
import { cutReviewText, MAX_REVIEW_FEEDBACK, reviewDecisionSchema } from './review';

function issues(body: unknown): string[] {
  const parsed = reviewDecisionSchema.safeParse(body);
  return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
}

describe('reviewDecisionSchema', () => {
  it('accepts each decision with what it needs', () => {
    expect(issues({ decision: 'approve' })).toEqual([]);
    expect(issues({ decision: 'revise', steps: ['web'], feedback: 'the G3, not the G2' })).toEqual(
      [],
    );
    expect(issues({ decision: 'replan', feedback: 'use my documents first' })).toEqual([]);
    expect(issues({ decision: 'recompose' })).toEqual([]);
    expect(issues({ decision: 'recompose', feedback: 'shorter' })).toEqual([]);
  });

  it('says what a decision lacks or has too much of', () => {
    expect(issues({ decision: 'revise', feedback: 'again' })).toEqual([
      "a 'revise' decision names the steps to run again",
    ]);
    expect(issues({ decision: 'revise', steps: ['web'], feedback: '   ' })).toEqual([
      "a 'revise' decision says what to change (feedback)",
    ]);
    expect(issues({ decision: 'replan' })).toEqual([
      "a 'replan' decision says what to change (feedback)",
    ]);
    expect(issues({ decision: 'approve', steps: ['web'] })).toEqual([
      "steps go with a 'revise' decision only, not 'approve'",
    ]);
    expect(issues({ decision: 'revise', steps: [], feedback: 'x' })).toContain(
      'steps names at least one step',
    );
    expect(
      issues({ decision: 'recompose', feedback: 'x'.repeat(MAX_REVIEW_FEEDBACK + 1) }),
    ).toEqual([`feedback has at most ${MAX_REVIEW_FEEDBACK} characters`]);
    expect(issues({ decision: 'ship-it' })).toHaveLength(1);
    expect(issues({ decision: 'approve', extra: true })).toHaveLength(1);
    expect(issues({ decision: 'revise', steps: ['../x'], feedback: 'x' })).toHaveLength(1);
  });
});

describe('cutReviewText', () => {
  it('keeps short text and cuts long text to the limit with an ellipsis', () => {
    expect(cutReviewText('short', 10)).toBe('short');
    expect(cutReviewText('0123456789ab', 10)).toBe('012345678…');
  });
});
