import { ToolError } from './tool-error';

/** What `current_time` reports. */
export interface CurrentTime {
  /** The instant in UTC, ISO 8601. */
  iso: string;
  timeZone: string;
  /** The local date and time in that zone, e.g. `2026-11-22 17:05:09`. */
  local: string;
  /** e.g. `Sunday` */
  weekday: string;
  /** The zone's offset from UTC at that instant, e.g. `+01:00`. */
  utcOffset: string;
}

/**
 * True when `timeZone` is an IANA time zone name the runtime knows (`Europe/Berlin`, `UTC`).
 *
 * @example
 * isTimeZone('Asia/Tokyo'); // true
 * isTimeZone('Mars/Olympus'); // false
 */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

function offsetOf(parts: Record<string, string>, instant: Date): string {
  const asUtc = Date.UTC(
    Number(parts['year']),
    Number(parts['month']) - 1,
    Number(parts['day']),
    Number(parts['hour']) % 24,
    Number(parts['minute']),
    Number(parts['second']),
  );
  const minutes = Math.round((asUtc - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
  const sign = minutes < 0 ? '-' : '+';
  const absolute = Math.abs(minutes);
  return `${sign}${String(Math.floor(absolute / 60)).padStart(2, '0')}:${String(absolute % 60).padStart(2, '0')}`;
}

/**
 * The current date and time in an IANA time zone.
 *
 * @throws ToolError when the time zone is unknown.
 * @example
 * currentTime({ timeZone: 'Europe/Berlin', now: new Date('2026-01-01T12:00:00Z') });
 * // { iso: '2026-01-01T12:00:00.000Z', timeZone: 'Europe/Berlin', local: '2026-01-01 13:00:00', weekday: 'Thursday', utcOffset: '+01:00' }
 */
export function currentTime({
  timeZone = 'UTC',
  now = new Date(),
}: { timeZone?: string; now?: Date } = {}): CurrentTime {
  if (!isTimeZone(timeZone)) {
    throw new ToolError(
      `Unknown time zone "${timeZone}": use an IANA name such as UTC, Europe/Berlin or America/New_York.`,
    );
  }
  const formatter = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    weekday: 'long',
    hourCycle: 'h23',
  });
  const parts = Object.fromEntries(
    formatter.formatToParts(now).map((part) => [part.type, part.value]),
  );
  const hour = String(Number(parts['hour']) % 24).padStart(2, '0');
  return {
    iso: now.toISOString(),
    timeZone: formatter.resolvedOptions().timeZone,
    local: `${parts['year']}-${parts['month']}-${parts['day']} ${hour}:${parts['minute']}:${parts['second']}`,
    weekday: parts['weekday'] ?? '',
    utcOffset: offsetOf(parts, now),
  };
}
