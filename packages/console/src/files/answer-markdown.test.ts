import { describe, expect, it } from '@jest/globals';
import { parseAnswer, parseInlines, splitRow, type Block, type Inline } from './answer-markdown';

const FILE = `file-${'a'.repeat(32)}`;
const OTHER = `file-${'b'.repeat(32)}`;

/** Every string a block would show, concatenated: what the page's text nodes hold. */
function textOf(inlines: Inline[]): string {
  return inlines
    .map((inline) =>
      inline.kind === 'text'
        ? inline.text
        : inline.kind === 'file-image'
          ? inline.alt
          : inline.text,
    )
    .join('');
}

function tableOf(blocks: Block[]): Extract<Block, { kind: 'table' }> {
  const table = blocks.find((block) => block.kind === 'table');
  if (table?.kind !== 'table') throw new Error(`no table in ${JSON.stringify(blocks)}`);
  return table;
}

describe('answer Markdown', () => {
  it('reads a GitHub pipe table with alignment, between text kept as written', () => {
    const blocks = parseAnswer(
      [
        'Monthly totals:',
        '',
        '| Month | Total |',
        '| :--- | ---: |',
        '| 2026-01 | 125.50 |',
        '| 2026-02 | 100.00 |',
        '',
        'Done.',
      ].join('\n'),
    );
    expect(blocks.map((block) => block.kind)).toEqual(['text', 'table', 'text']);
    const table = tableOf(blocks);
    expect(table.header.map(textOf)).toEqual(['Month', 'Total']);
    expect(table.align).toEqual(['left', 'right']);
    expect(table.rows.map((row) => row.map(textOf))).toEqual([
      ['2026-01', '125.50'],
      ['2026-02', '100.00'],
    ]);
    expect(blocks[0]).toEqual({
      kind: 'text',
      inlines: [{ kind: 'text', text: 'Monthly totals:' }],
    });
    expect(blocks[2]).toEqual({ kind: 'text', inlines: [{ kind: 'text', text: 'Done.' }] });
  });

  it('pads short rows, cuts long ones, and reads escaped pipes as text', () => {
    const table = tableOf(parseAnswer('a | b\n--|--\n| 1\n2 | 3 | 4\nx \\| y | z'));
    expect(table.rows.map((row) => row.map(textOf))).toEqual([
      ['1', ''],
      ['2', '3'],
      ['x | y', 'z'],
    ]);
    expect(splitRow('| a \\| b | c |')).toEqual(['a | b', 'c']);
  });

  it('makes no table when the delimiter row does not match the header, or inside a code fence', () => {
    expect(parseAnswer('a | b | c\n--- | ---\n1 | 2 | 3').map((block) => block.kind)).toEqual([
      'text',
    ]);
    const fenced = parseAnswer('```\n| a | b |\n|---|---|\n| 1 | 2 |\n```\nafter');
    expect(fenced.map((block) => block.kind)).toEqual(['code', 'text']);
    expect(fenced[0]).toEqual({ kind: 'code', text: '```\n| a | b |\n|---|---|\n| 1 | 2 |\n```' });
  });

  it('keeps markup in cells and text as text: no kind of block or piece carries HTML', () => {
    const blocks = parseAnswer(
      '<script>alert(1)</script>\n\n| name | note |\n|---|---|\n| <script>x()</script> | <img src=x onerror=alert(1)> |',
    );
    expect(blocks[0]).toEqual({
      kind: 'text',
      inlines: [{ kind: 'text', text: '<script>alert(1)</script>' }],
    });
    const table = tableOf(blocks);
    expect(table.rows[0]).toEqual([
      [{ kind: 'text', text: '<script>x()</script>' }],
      [{ kind: 'text', text: '<img src=x onerror=alert(1)>' }],
    ]);
  });

  it('turns run-file images and links into file pieces, in text and in cells', () => {
    expect(
      parseInlines(
        `See ![chart.png](/v1/files/${FILE}/content) and [the data](/v1/files/${OTHER}/content).`,
      ),
    ).toEqual([
      { kind: 'text', text: 'See ' },
      { kind: 'file-image', fileId: FILE, alt: 'chart.png' },
      { kind: 'text', text: ' and ' },
      { kind: 'file-link', fileId: OTHER, text: 'the data' },
      { kind: 'text', text: '.' },
    ]);
    const table = tableOf(parseAnswer(`| chart |\n|---|\n| ![c](/v1/files/${FILE}/content) |`));
    expect(table.rows[0]).toEqual([[{ kind: 'file-image', fileId: FILE, alt: 'c' }]]);
  });

  it('accepts a content path on the page origin, and nothing else as a file', () => {
    expect(
      parseInlines(`![c](https://fleet.example/v1/files/${FILE}/content)`, 'https://fleet.example'),
    ).toEqual([{ kind: 'file-image', fileId: FILE, alt: 'c' }]);
    for (const target of [
      `https://evil.example/v1/files/${FILE}/content`,
      `/v1/files/${FILE}/content?x=1`,
      '/v1/files/file-XYZ/content',
      `/v1/files/${FILE}`,
    ]) {
      expect(parseInlines(`![c](${target})`, 'https://fleet.example')).toEqual([
        { kind: 'text', text: `![c](${target})` },
      ]);
    }
  });

  it('links only http(s) URLs; javascript: and data: links stay text as written', () => {
    expect(parseInlines('[docs](https://example.com/a)')).toEqual([
      { kind: 'link', href: 'https://example.com/a', text: 'docs' },
    ]);
    for (const written of [
      '[x](javascript:alert(1))',
      '[x](data:text/html,<script>alert(1)</script>)',
      '![x](https://tracker.example/pixel.png)',
    ]) {
      expect(textOf(parseInlines(written))).toBe(written);
      expect(parseInlines(written).every((inline) => inline.kind === 'text')).toBe(true);
    }
  });

  it('shows a half-streamed table row and link as they are so far', () => {
    const blocks = parseAnswer(`| a | b |\n|---|---|\n| 1 | 2 |\n| 3 ![c](/v1/files/${FILE}/con`);
    const table = tableOf(blocks);
    expect(table.rows.map((row) => row.map(textOf))).toEqual([
      ['1', '2'],
      [`3 ![c](/v1/files/${FILE}/con`, ''],
    ]);
  });

  it('keeps a link whose text or target is too long as text', () => {
    const long = `[${'a'.repeat(600)}](https://example.com)`;
    expect(parseInlines(long)).toEqual([{ kind: 'text', text: long }]);
    const far = `[a](https://example.com/${'b'.repeat(2100)})`;
    expect(parseInlines(far)).toEqual([{ kind: 'text', text: far }]);
  });
});
