import { describe, expect, it } from '@jest/globals';
import { missingFacts } from './match-facts';

describe('missingFacts', () => {
  it('ignores case, spacing, citation markers and typographic dashes', () => {
    expect(
      missingFacts('Submit claims in Pleo within  60\u00a0DAYS [1]. See SEV\u20111 [2].', [
        '60 days',
        'sev-1',
      ]),
    ).toEqual([]);
  });

  it('counts a fact given as alternatives when any one is stated', () => {
    expect(missingFacts('Ask your manager [1].', [['finance', 'manager'], '60 days'])).toEqual([
      '60 days',
    ]);
  });

  it('does not find a number inside a longer one, nor a word inside a longer word', () => {
    expect(missingFacts('It costs 250 EUR and was opened in 2026.', ['25', 'open'])).toEqual([
      '25',
      'open',
    ]);
    expect(missingFacts('Up to 25. Status: Open.', ['25', 'open'])).toEqual([]);
  });

  it('takes a plural for a word', () => {
    expect(missingFacts('Maintenance is on Sundays.', ['sunday'])).toEqual([]);
  });
});
