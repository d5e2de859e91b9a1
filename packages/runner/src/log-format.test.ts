import { describe, expect, it } from '@jest/globals';
import { formatLogLine, formatLogTime } from './log-format';
import { stripAnsi } from './terminal';

const time = new Date(2026, 10, 22, 9, 5, 7, 42).getTime();

describe('formatLogLine', () => {
  it('shows time, level, service, message and the other fields', () => {
    const line = JSON.stringify({
      level: 30,
      time,
      pid: 1,
      hostname: 'box',
      service: 'gateway',
      msg: 'request completed',
      status: 200,
      path: '/v1/models',
      note: 'two words',
    });
    expect(formatLogLine({ line })).toBe(
      '09:05:07.042 INFO  gateway request completed status=200 path=/v1/models note="two words"',
    );
  });

  it('names pino levels and puts an error stack below the line', () => {
    const line = JSON.stringify({
      level: 50,
      time,
      name: 'planner',
      msg: 'failed',
      err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at run (x.js:1:1)' },
    });
    expect(formatLogLine({ line }).split('\n')).toEqual([
      '09:05:07.042 ERROR planner failed',
      '    Error: boom',
      '        at run (x.js:1:1)',
    ]);
  });

  it('accepts string levels and ISO times', () => {
    const line = JSON.stringify({ level: 'warn', time: new Date(time).toISOString(), msg: 'slow' });
    expect(formatLogLine({ line })).toBe('09:05:07.042 WARN  slow');
  });

  it('returns lines that are not JSON objects unchanged', () => {
    expect(formatLogLine({ line: 'plain text from a crash' })).toBe('plain text from a crash');
    expect(formatLogLine({ line: '{"truncated": ' })).toBe('{"truncated": ');
    expect(formatLogLine({ line: '' })).toBe('');
  });

  it('colours only when asked, and the text stays the same', () => {
    const line = JSON.stringify({ level: 40, time, msg: 'careful' });
    const coloured = formatLogLine({ line, color: true });
    expect(coloured).not.toBe(formatLogLine({ line }));
    expect(stripAnsi(coloured)).toBe(formatLogLine({ line }));
  });
});

describe('formatLogTime', () => {
  it('leaves values that are not times alone', () => {
    expect(formatLogTime('yesterday')).toBe('yesterday');
    expect(formatLogTime(undefined)).toBe('');
  });
});
