/** The clock a prompt builder reads: injectable so tests pin the date. */
export type Clock = () => Date;

/** The system clock. */
export const systemClock: Clock = () => new Date();

const WEEKDAYS = [
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
] as const;

/**
 * The line every prompt that reasons about time carries, so the model never guesses "today" from
 * its training data: the UTC date, its weekday and the UTC time to the minute.
 *
 * @example
 * currentDateLine(new Date('2026-11-28T01:40:00Z'));
 * // 'Current date and time: 2026-11-28 (Saturday), 01:40 UTC.'
 */
export function currentDateLine(now: Date = new Date()): string {
  const iso = now.toISOString();
  const weekday = WEEKDAYS[now.getUTCDay()] ?? '';
  return `Current date and time: ${iso.slice(0, 10)} (${weekday}), ${iso.slice(11, 16)} UTC.`;
}
