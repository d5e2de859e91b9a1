import { describe, expect, it } from '@jest/globals';
import { delimiterFor, parseDelimited } from './delimited';

describe('CSV and TSV previews', () => {
  it('reads quoted fields: delimiters, doubled quotes and line breaks inside quotes', () => {
    const preview = parseDelimited(
      'name,note\r\n"Smith, Jane","said ""hi""\nthen left"\r\nplain,"<script>alert(1)</script>"\r\n',
      { delimiter: ',' },
    );
    expect(preview.rows).toEqual([
      ['name', 'note'],
      ['Smith, Jane', 'said "hi"\nthen left'],
      ['plain', '<script>alert(1)</script>'],
    ]);
    expect(preview.totalRows).toBe(3);
    expect(preview.truncated).toBe(false);
  });

  it('keeps the first rows and counts them all', () => {
    const text = ['n', ...Array.from({ length: 99 }, (_, index) => `"${index}\n"`)].join('\n');
    const preview = parseDelimited(text, { delimiter: ',', maxRows: 5 });
    expect(preview.rows).toHaveLength(5);
    expect(preview.rows[4]).toEqual(['3\n']);
    expect(preview.totalRows).toBe(100);
    expect(preview.truncated).toBe(true);
  });

  it('cuts wide rows and long cells, skips blank lines and a byte-order mark', () => {
    const preview = parseDelimited(`\uFEFFa,b,c,d\n\n${'x'.repeat(50)},2,3,4\n`, {
      delimiter: ',',
      maxColumns: 2,
      maxCellLength: 10,
    });
    expect(preview.rows).toEqual([
      ['a', 'b'],
      [`${'x'.repeat(10)}…`, '2'],
    ]);
    expect(preview.columns).toBe(2);
    expect(preview.totalRows).toBe(2);
    expect(preview.truncated).toBe(true);
  });

  it('reads TSV with tabs, and keeps empty cells', () => {
    expect(delimiterFor('text/tab-separated-values')).toBe('\t');
    expect(delimiterFor('text/csv; charset=utf-8')).toBe(',');
    expect(parseDelimited('a\tb\t\n1\t\t3', { delimiter: '\t' }).rows).toEqual([
      ['a', 'b', ''],
      ['1', '', '3'],
    ]);
  });
});
