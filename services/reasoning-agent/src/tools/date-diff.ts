import { ToolError } from './tool-error';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

function parseDate(text: string, label: string): number {
  const match = DATE.exec(text.trim());
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [];
  if (year === undefined || month === undefined || day === undefined) {
    throw new ToolError(`${label} "${text}" is not a date: use YYYY-MM-DD, e.g. 2026-03-14.`);
  }
  const time = Date.UTC(year, month - 1, day);
  const check = new Date(time);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    throw new ToolError(`${label} "${text}" does not exist in the calendar.`);
  }
  return time;
}

/** What `date_diff` reports: whole days from `start` to `end` (negative when `end` is earlier). */
export interface DateDiff {
  start: string;
  end: string;
  days: number;
  /** `days` as whole weeks and remaining days. */
  weeks: number;
  remainingDays: number;
}

/**
 * Calendar days between two dates (YYYY-MM-DD), counted in UTC so daylight saving never shifts
 * them.
 *
 * @throws ToolError when a date is malformed or does not exist.
 * @example
 * dateDiff({ start: '2026-01-01', end: '2026-03-01' }); // { days: 59, weeks: 8, remainingDays: 3, … }
 */
export function dateDiff({ start, end }: { start: string; end: string }): DateDiff {
  const days = Math.round((parseDate(end, 'end') - parseDate(start, 'start')) / DAY_MS);
  const weeks = Math.trunc(days / 7);
  return { start: start.trim(), end: end.trim(), days, weeks, remainingDays: days - weeks * 7 };
}
