import { describe, expect, it } from '@jest/globals';
import { currentTime, isTimeZone } from './current-time';
import { dateDiff } from './date-diff';
import { createReasoningTools, type BuiltInTool } from './reasoning-tools';
import { ToolError } from './tool-error';

const NOW = new Date('2026-07-01T12:34:56Z');

function tool(name: string): BuiltInTool {
  const found = createReasoningTools({ defaultTimeZone: 'Europe/Berlin', now: () => NOW }).find(
    (each) => each.name === name,
  );
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

describe('currentTime', () => {
  it('reports the local time, weekday and offset in the zone', () => {
    expect(currentTime({ timeZone: 'Asia/Tokyo', now: NOW })).toEqual({
      iso: '2026-07-01T12:34:56.000Z',
      timeZone: 'Asia/Tokyo',
      local: '2026-07-01 21:34:56',
      weekday: 'Wednesday',
      utcOffset: '+09:00',
    });
    expect(currentTime({ timeZone: 'America/New_York', now: NOW }).utcOffset).toBe('-04:00');
    expect(currentTime({ now: NOW }).local).toBe('2026-07-01 12:34:56');
  });

  it('refuses an unknown zone with a clear error', () => {
    expect(() => currentTime({ timeZone: 'Mars/Olympus', now: NOW })).toThrow(ToolError);
    expect(() => currentTime({ timeZone: 'Mars/Olympus', now: NOW })).toThrow(
      /Unknown time zone "Mars\/Olympus": use an IANA name/,
    );
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('nowhere')).toBe(false);
  });
});

describe('dateDiff', () => {
  it('counts calendar days across daylight saving and years', () => {
    expect(dateDiff({ start: '2026-03-01', end: '2026-04-01' })).toMatchObject({ days: 31 });
    expect(dateDiff({ start: '2026-12-31', end: '2026-01-01' })).toMatchObject({
      days: -364,
      weeks: -52,
      remainingDays: 0,
    });
    expect(dateDiff({ start: '2024-01-01', end: '2025-01-01' }).days).toBe(366);
  });

  it('refuses malformed and impossible dates', () => {
    expect(() => dateDiff({ start: '2026-02-30', end: '2026-03-01' })).toThrow(
      /start "2026-02-30" does not exist/,
    );
    expect(() => dateDiff({ start: '2026-01-01', end: 'tomorrow' })).toThrow(
      /end "tomorrow" is not a date: use YYYY-MM-DD/,
    );
  });
});

describe('createReasoningTools', () => {
  it('offers calculate, current_time and date_diff with JSON Schema parameters', () => {
    const tools = createReasoningTools();
    expect(tools.map((each) => each.name)).toEqual(['calculate', 'current_time', 'date_diff']);
    for (const each of tools) {
      expect(each.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      expect(each.description.length).toBeGreaterThan(20);
    }
  });

  it('runs each tool on the JSON arguments the model sends', () => {
    expect(tool('calculate').run('{"expression":"(17 + 25) * 3"}')).toBe('126');
    expect(JSON.parse(tool('current_time').run('{}'))).toMatchObject({
      timeZone: 'Europe/Berlin',
      local: '2026-07-01 14:34:56',
    });
    expect(JSON.parse(tool('current_time').run(''))).toMatchObject({ timeZone: 'Europe/Berlin' });
    expect(JSON.parse(tool('current_time').run('{"timezone":"UTC"}'))).toMatchObject({
      local: '2026-07-01 12:34:56',
    });
    expect(
      JSON.parse(tool('date_diff').run('{"start":"2026-07-01","end":"2026-12-25"}')),
    ).toMatchObject({
      days: 177,
    });
  });

  it('refuses bad arguments with errors the model can act on', () => {
    expect(() => tool('calculate').run('{"expression": 42}')).toThrow(
      /The arguments of calculate is invalid at 'expression': expression must be a string/,
    );
    expect(() => tool('calculate').run('{expression: 1}')).toThrow(
      /The arguments of calculate is not valid JSON/,
    );
    expect(() => tool('calculate').run('{}')).toThrow(ToolError);
    expect(() => tool('calculate').run('{"expression":"1/0"}')).toThrow(/Division by zero/);
    expect(() => tool('current_time').run('{"timezone":"Nowhere/Land"}')).toThrow(
      /Unknown time zone/,
    );
  });
});
