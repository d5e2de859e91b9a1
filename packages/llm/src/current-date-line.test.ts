import { describe, expect, it } from '@jest/globals';
import { currentDateLine } from './current-date-line';

describe('currentDateLine', () => {
  it('names the UTC date, its weekday and the UTC time', () => {
    expect(currentDateLine(new Date('2026-11-28T01:40:59Z'))).toBe(
      'Current date and time: 2026-11-28 (Saturday), 01:40 UTC.',
    );
  });

  it('uses the UTC day, not the local one', () => {
    expect(currentDateLine(new Date('2026-03-01T23:30:00-05:00'))).toBe(
      'Current date and time: 2026-03-02 (Monday), 04:30 UTC.',
    );
  });
});
