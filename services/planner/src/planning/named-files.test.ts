import { describe, expect, it } from '@jest/globals';
import { MAX_NODE_FILES } from '@fleet/a2a';
import { namedFiles } from './named-files';

describe('namedFiles', () => {
  it('finds file names with a known extension, each once, in order', () => {
    expect(namedFiles('plot the monthly totals from sales.csv')).toEqual(['sales.csv']);
    expect(
      namedFiles('compare the file report.xlsx with Q1_2026-sales.CSV and report.xlsx again'),
    ).toEqual(['report.xlsx', 'Q1_2026-sales.CSV']);
  });

  it('reads a path in a program by its last segment', () => {
    expect(namedFiles("df = pd.read_csv('/data/sales.csv')\nprint(df.groupby('month'))")).toEqual([
      'sales.csv',
    ]);
  });

  it('ignores method calls, domains, e-mail addresses and URLs', () => {
    expect(
      namedFiles(
        'call df.groupby, mail bob@example.com, read https://example.com/files/report.pdf and pd.read_csv',
      ),
    ).toEqual([]);
  });

  it(`keeps at most ${MAX_NODE_FILES} names`, () => {
    const request = Array.from({ length: 20 }, (_, index) => `f${index}.csv`).join(' ');
    expect(namedFiles(request)).toHaveLength(MAX_NODE_FILES);
  });
});
