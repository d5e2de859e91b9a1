import { describe, expect, it } from '@jest/globals';
import {
  MAX_CSV_BYTES,
  parseDelimited,
  renderTable,
  stepTables,
  tableFromData,
  tableFromFilePart,
} from './answer-tables';
import { composeOffline, type ComposeStep } from './compose-answer';

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

describe('tableFromData', () => {
  it('reads { columns, rows }, the same under table, and flat objects with the same keys', () => {
    const expected = { columns: ['a', 'b'], rows: [[1, 'x']], totalRows: 1 };
    expect(tableFromData({ columns: ['a', 'b'], rows: [[1, 'x']] })).toEqual(expected);
    expect(tableFromData({ table: { columns: ['a', 'b'], rows: [[1, 'x']] } })).toEqual(expected);
    expect(tableFromData([{ a: 1, b: 'x' }])).toEqual(expected);
  });

  it('ignores data that is not a table', () => {
    expect(
      tableFromData({ sources: [{ title: 'T', url: 'https://example.com' }] }),
    ).toBeUndefined();
    expect(tableFromData({ columns: ['a'], rows: 'nope' })).toBeUndefined();
    expect(tableFromData({ columns: [1, 2], rows: [] })).toBeUndefined();
    expect(tableFromData([{ a: 1 }, { b: 2 }])).toBeUndefined();
    expect(tableFromData([{ a: { nested: true } }])).toBeUndefined();
    expect(tableFromData(['a', 'b'])).toBeUndefined();
    expect(tableFromData('a,b')).toBeUndefined();
    expect(tableFromData(undefined)).toBeUndefined();
  });
});

describe('parseDelimited', () => {
  it('handles quoted delimiters, doubled quotes, line breaks in quotes and CRLF', () => {
    const table = parseDelimited(
      'name,note\r\n"Smith, J","said ""hi"""\r\n"two\nlines",plain\r\n\r\n',
      ',',
      10,
    );
    expect(table).toEqual({
      columns: ['name', 'note'],
      rows: [
        ['Smith, J', 'said "hi"'],
        ['two\nlines', 'plain'],
      ],
      totalRows: 2,
    });
  });

  it('keeps the first rows and counts them all; reads TSV', () => {
    const text = ['n', ...Array.from({ length: 30 }, (_, index) => String(index))].join('\n');
    const table = parseDelimited(text, ',', 5);
    expect(table?.rows).toEqual([['0'], ['1'], ['2'], ['3'], ['4']]);
    expect(table?.totalRows).toBe(30);
    expect(parseDelimited('a\tb\n1\t2', '\t', 5)?.rows).toEqual([['1', '2']]);
  });
});

describe('tableFromFilePart', () => {
  it('reads CSV by media type or file name, TSV by name, and nothing else', () => {
    expect(tableFromFilePart({ raw: base64('a,b\n1,2\n'), mediaType: 'text/csv' }, 20)).toEqual({
      columns: ['a', 'b'],
      rows: [['1', '2']],
      totalRows: 1,
    });
    expect(tableFromFilePart({ raw: base64('a\tb\n1\t2\n'), filename: 'x.tsv' }, 20)?.rows).toEqual(
      [['1', '2']],
    );
    expect(tableFromFilePart({ raw: base64('a,b\n1,2\n'), filename: 'x.CSV' }, 20)?.file).toBe(
      'x.CSV',
    );
    expect(
      tableFromFilePart({ raw: base64('a,b\n1,2\n'), mediaType: 'application/pdf' }, 20),
    ).toBeUndefined();
  });

  it('keeps only the columns the answer can show, and says how many there are', () => {
    const header = Array.from({ length: 20 }, (_, index) => `c${index}`).join(',');
    const row = Array.from({ length: 20 }, (_, index) => String(index)).join(',');
    const table = tableFromFilePart({ raw: base64(`${header}\n${row}\n`), filename: 'w.csv' }, 20);
    expect(table?.columns).toHaveLength(12);
    expect(table?.rows[0]).toHaveLength(12);
    expect(renderTable(table!, 20).split('\n').at(-1)).toBe(
      'first 12 of 20 columns; the full table is in w.csv',
    );
  });

  it('parses only the first MiB and says the count is a lower bound', () => {
    const row = 'abcdefghij,0123456789\n';
    const rows = Math.ceil((MAX_CSV_BYTES * 2) / row.length);
    const text = `x,y\n${row.repeat(rows)}`;
    const table = tableFromFilePart({ raw: base64(text), filename: 'big.csv' }, 20);
    expect(table?.rows).toHaveLength(20);
    expect(table?.totalIsAtLeast).toBe(true);
    expect(table?.totalRows).toBeLessThan(rows);
    expect(table?.totalRows).toBeGreaterThan(rows / 3);
    // The last line read is cut off by the limit: it is dropped, not shown half.
    expect(table?.rows.every((cells) => cells[1] === '0123456789')).toBe(true);
    expect(renderTable(table!, 20)).toContain(
      `first 20 of more than ${table!.totalRows.toLocaleString('en-US')} rows; the full table is in big.csv`,
    );
  });
});

describe('renderTable', () => {
  it('escapes pipes and backslashes, flattens line breaks and cuts long cells', () => {
    const markdown = renderTable(
      {
        columns: ['a|b', 'c'],
        rows: [
          ['x|y\nz', 'w'.repeat(250)],
          [null, 3],
        ],
        totalRows: 2,
      },
      20,
    );
    expect(markdown.split('\n')).toEqual([
      '| a\\|b | c |',
      '| --- | --- |',
      `| x\\|y z | ${'w'.repeat(200)}… |`,
      '|  | 3 |',
    ]);
  });

  it('cuts rows and columns and says so, naming the file that holds the rest', () => {
    const columns = Array.from({ length: 15 }, (_, index) => `c${index}`);
    const rows = Array.from({ length: 1234 }, (_, index) => columns.map(() => index));
    const markdown = renderTable(
      { columns, rows: rows.slice(0, 200), totalRows: 1234, file: 'sales-by-month.csv' },
      20,
    );
    const lines = markdown.split('\n');
    expect(lines).toHaveLength(2 + 20 + 2);
    expect(lines[0]?.split(' | ')).toHaveLength(12);
    expect(lines.at(-1)).toBe(
      'first 20 of 1,234 rows, first 12 of 15 columns; the full table is in sales-by-month.csv',
    );
  });

  it('adds no line under a table shown whole', () => {
    expect(renderTable({ columns: ['a'], rows: [[1]], totalRows: 1 }, 20)).toBe(
      '| a |\n| --- |\n| 1 |',
    );
  });
});

describe('tables in the offline answer', () => {
  it('renders a step’s tables under it, and nothing for data that is not a table', () => {
    const steps: ComposeStep[] = [
      {
        id: 'sales',
        agent: 'sheets-agent',
        task: 'Sum sales by month',
        state: 'completed',
        summary: 'Sales by month.',
        data: {
          columns: ['month', 'sales'],
          rows: [
            ['Jan', 10],
            ['Feb', 12],
          ],
        },
        tables: [{ columns: ['x'], rows: [['1']], totalRows: 3, file: 'x.csv' }],
      },
      {
        id: 'web',
        agent: 'web-agent',
        task: 'Find the news',
        state: 'completed',
        summary: 'News [1].',
        data: { sources: [{ title: 'News', url: 'https://example.com' }] },
      },
    ];
    expect(stepTables(steps[1]!)).toEqual([]);
    const { text } = composeOffline({ request: 'sales?', steps, tableRows: 1 });
    expect(text).toContain(
      'Sales by month.\n\n| month | sales |\n| --- | --- |\n| Jan | 10 |\n\nfirst 1 of 2 rows\n\n| x |\n| --- |\n| 1 |\n\nfirst 1 of 3 rows; the full table is in x.csv',
    );
    expect(text.match(/\| --- \|/g)).toHaveLength(2);
  });
});
