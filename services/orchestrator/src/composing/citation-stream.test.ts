import { describe, expect, it } from '@jest/globals';
import { createCitationStream, localToGlobal } from './citation-stream';
import { renumberCitations } from './renumber-citations';

/** Pushes `pieces` through a stream and returns what came out, piece by piece. */
function run(pieces: readonly string[], local: readonly number[]): string[] {
  const stream = createCitationStream(localToGlobal(local));
  const out = pieces.map((piece) => stream.push(piece));
  out.push(stream.end());
  return out;
}

describe('createCitationStream', () => {
  it('renumbers a marker split across pieces once its `]` arrives', () => {
    expect(run(['Paris [', '1] and Lyon [2', ']. End'], [3, 5])).toEqual([
      'Paris ',
      '[3] and Lyon ',
      '[5]. End',
      '',
    ]);
  });

  it('holds back only the unfinished marker, never the text before it', () => {
    const stream = createCitationStream(localToGlobal([4]));
    expect(stream.push('A long sentence that cites [')).toBe('A long sentence that cites ');
    expect(stream.push('1')).toBe('');
    expect(stream.push(', ')).toBe('');
    expect(stream.push('2] here')).toBe('[1, 2] here'); // 2 is past the step's sources: kept
  });

  it('renumbers grouped markers, piece by piece as renumberCitations does whole', () => {
    const summary = 'Hotels [1, 2] and trains [2]; see [3] and [1,3].';
    const sources = [
      { title: 'A', url: 'https://a' },
      { title: 'B' },
      { title: 'A', url: 'https://a' },
    ];
    const whole = renumberCitations([{ id: 'x', agent: 'rag-agent', summary, sources }]);
    // The local → global numbers renumberCitations chose for this one step.
    const local = [1, 2, 1];
    for (const size of [1, 2, 3, 5, 7]) {
      const pieces: string[] = [];
      for (let index = 0; index < summary.length; index += size) {
        pieces.push(summary.slice(index, index + size));
      }
      expect(run(pieces, local).join('')).toBe(whole.steps[0]?.summary);
    }
  });

  it('lets a bracket that is no marker through', () => {
    expect(run(['a [b', '] c [', ' d'], [1]).join('')).toBe('a [b] c [ d');
    // An unfinished marker at the very end is flushed by end().
    expect(run(['cut [1'], [2])).toEqual(['cut ', '[1']);
    // A long run of digits after `[` is not held forever.
    const long = `[${'1'.repeat(40)}`;
    expect(run([long], [1])[0]).toBe(long);
  });
});
