import { describe, expect, it } from '@jest/globals';
import { readAgentProgress } from './read-agent-progress';

describe('readAgentProgress', () => {
  it('joins the text parts into one trimmed line, without control characters', () => {
    expect(
      readAgentProgress([
        { text: '  Reading\n' },
        { data: { other: true } },
        { text: 'https://example.org/a\u0007\tpage ' },
      ]),
    ).toEqual({ text: 'Reading https://example.org/a page' });
  });

  it('cuts a long text to 300 characters and an ellipsis', () => {
    const read = readAgentProgress([{ text: 'x'.repeat(1000) }]);
    expect(read?.text).toBe(`${'x'.repeat(300)}…`);
  });

  it('takes a short stage named in a data part { progress: { stage } }', () => {
    expect(
      readAgentProgress([{ text: 'Searching…' }, { data: { progress: { stage: ' searching ' } } }]),
    ).toEqual({ text: 'Searching…', stage: 'searching' });
    expect(
      readAgentProgress([
        { text: 'Searching…' },
        { data: { progress: { stage: 'y'.repeat(65) } } },
      ]),
    ).toEqual({ text: 'Searching…' });
    expect(
      readAgentProgress([{ text: 'Searching…' }, { data: { progress: { stage: 7 } } }]),
    ).toEqual({ text: 'Searching…' });
  });

  it('reads nothing from a status without text', () => {
    expect(readAgentProgress(undefined)).toBeUndefined();
    expect(readAgentProgress([])).toBeUndefined();
    expect(
      readAgentProgress([{ text: ' \n ' }, { data: { progress: { stage: 'x' } } }]),
    ).toBeUndefined();
  });
});
