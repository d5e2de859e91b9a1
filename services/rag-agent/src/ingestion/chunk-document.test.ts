import { describe, expect, it } from '@jest/globals';
import { ValidationError } from '@fleet/errors';
import { buildPdf } from './__fixtures__/build-fixtures';
import { chunkDocument } from './chunk-document';
import { countTokens } from './count-tokens';
import { parseDocument } from './parse-document';
import type { Block, Chunk, ParsedDocument } from './types';

function doc(blocks: Block[], path: string[] = ['Guide', 'Details']): ParsedDocument {
  return { docType: 'md', title: 'Guide', sections: [{ path, level: path.length, blocks }] };
}

function children(chunks: readonly Chunk[]): Chunk[] {
  return chunks.filter((chunk) => chunk.kind === 'child');
}

/** The content of a chunk without its heading prefix. */
function body(chunk: Chunk): string {
  return chunk.text.slice(chunk.metadata['bodyOffset'] as number);
}

/** Invariants every chunking must keep. */
function expectWellFormed(chunks: readonly Chunk[], maxTokens: number): void {
  chunks.forEach((chunk, index) => {
    expect(chunk.ordinal).toBe(index);
    expect(chunk.tokens).toBe(countTokens(chunk.text));
    if (chunk.kind === 'child') {
      expect(chunk.tokens).toBeLessThanOrEqual(maxTokens);
      const parent = chunks[chunk.parentOrdinal ?? -1];
      expect(parent?.kind).toBe('parent');
      expect(parent?.ordinal).toBeLessThan(chunk.ordinal);
      expect(parent?.section).toBe(chunk.section);
      expect(parent?.text).toContain(body(chunk));
    } else {
      expect(chunk.parentOrdinal).toBeUndefined();
    }
  });
}

/** A sentence of about 12 tokens, distinct per index. */
function sentence(index: number): string {
  return `Sentence number ${index} explains one more detail of the travel policy.`;
}

describe('chunkDocument', () => {
  it('puts specific sentences in chunks with their section and page', async () => {
    const bytes = buildPdf([
      [
        { text: 'Quarterly Report', size: 22, gap: 34 },
        { text: 'Revenue grew by 12 percent in the third quarter.', gap: 40 },
        { text: 'Pricing', size: 16, gap: 26 },
        'The enterprise plan now costs 40 euros per seat.',
      ],
      ['Discounts for charities stay at 50 percent.'],
    ]);
    const chunks = chunkDocument(await parseDocument({ filename: 'report.pdf', bytes }));
    expectWellFormed(chunks, 350);
    const find = (text: string): Chunk | undefined =>
      children(chunks).find((chunk) => chunk.text.includes(text));
    expect(find('Revenue grew by 12 percent')).toMatchObject({
      section: 'Quarterly Report',
      page: 1,
      text: 'Section: Quarterly Report\n\nRevenue grew by 12 percent in the third quarter.',
    });
    expect(find('40 euros per seat')).toMatchObject({
      section: 'Quarterly Report > Pricing',
      page: 1,
      metadata: { lastPage: 2 },
    });
    expect(find('Discounts for charities')?.section).toBe('Quarterly Report > Pricing');
  });

  it('numbers parents and children densely, each parent before its children', () => {
    const chunks = chunkDocument({
      docType: 'md',
      title: 'Handbook',
      sections: [
        { path: [], level: 0, blocks: [{ kind: 'paragraph', text: 'Intro text.' }] },
        { path: ['Leave'], level: 1, blocks: [{ kind: 'paragraph', text: 'Leave text.' }] },
      ],
    });
    expect(
      chunks.map(({ ordinal, kind, parentOrdinal, section, text }) => ({
        ordinal,
        kind,
        parentOrdinal,
        section,
        text,
      })),
    ).toEqual([
      {
        ordinal: 0,
        kind: 'parent',
        parentOrdinal: undefined,
        section: '',
        text: 'Document: Handbook\n\nIntro text.',
      },
      {
        ordinal: 1,
        kind: 'child',
        parentOrdinal: 0,
        section: '',
        text: 'Document: Handbook\n\nIntro text.',
      },
      {
        ordinal: 2,
        kind: 'parent',
        parentOrdinal: undefined,
        section: 'Leave',
        text: 'Document: Handbook\nSection: Leave\n\nLeave text.',
      },
      {
        ordinal: 3,
        kind: 'child',
        parentOrdinal: 2,
        section: 'Leave',
        text: 'Document: Handbook\nSection: Leave\n\nLeave text.',
      },
    ]);
    expect(chunks[3]?.metadata).toEqual({
      blockKinds: ['paragraph'],
      bodyOffset: 'Document: Handbook\nSection: Leave\n\n'.length,
    });
  });

  it('leaves the title out of the prefix when it is the first heading', () => {
    const [, child] = chunkDocument(doc([{ kind: 'paragraph', text: 'Hello.' }], ['Guide']));
    expect(child?.text).toBe('Section: Guide\n\nHello.');
  });

  it('packs whole paragraphs and never splits one that fits', () => {
    const paragraphs = Array.from(
      { length: 40 },
      (_, index) => `${sentence(index)} ${sentence(index + 100)}`,
    );
    const chunks = chunkDocument(doc(paragraphs.map((text) => ({ kind: 'paragraph', text }))), {
      maxTokens: 120,
    });
    expectWellFormed(chunks, 120);
    const kids = children(chunks);
    expect(kids.length).toBeGreaterThan(5);
    const pieces = kids.flatMap((chunk) => body(chunk).split('\n\n'));
    expect(pieces).toEqual(paragraphs);
    expect(kids.every((chunk) => chunk.metadata['partial'] === undefined)).toBe(true);
  });

  it('splits a huge paragraph between sentences', () => {
    const sentences = Array.from({ length: 200 }, (_, index) => sentence(index));
    const chunks = chunkDocument(doc([{ kind: 'paragraph', text: sentences.join(' ') }]), {
      maxTokens: 100,
    });
    expectWellFormed(chunks, 100);
    const kids = children(chunks);
    expect(kids.length).toBeGreaterThan(20);
    for (const chunk of kids) {
      expect(body(chunk)).toMatch(/^Sentence number \d+ .*policy\.$/);
      expect(chunk.metadata['partial']).toBe(true);
    }
    expect(kids.map(body).join(' ')).toBe(sentences.join(' '));
  });

  it('splits one enormous sentence between words, and a word too long by tokens', () => {
    const words = Array.from({ length: 3000 }, (_, index) => `word${index}`);
    const giant = 'x'.repeat(4000);
    const chunks = chunkDocument(
      doc([
        { kind: 'paragraph', text: words.join(' ') },
        { kind: 'paragraph', text: giant },
      ]),
      { maxTokens: 200 },
    );
    expectWellFormed(chunks, 200);
    // A chunk may end one block and start the next (blocks are packed, "\n\n" between them).
    const bodies = children(chunks)
      .map(body)
      .flatMap((text) => text.split('\n\n'));
    const wordBodies = bodies.filter((text) => text.startsWith('word'));
    expect(wordBodies.join(' ').split(' ')).toEqual(words);
    const giantBodies = bodies.filter((text) => text.startsWith('x'));
    expect(giantBodies.length).toBeGreaterThan(1);
    expect(giantBodies.join('')).toBe(giant);
  });

  it('keeps a table that fits whole in one chunk, as Markdown', () => {
    const chunks = chunkDocument(
      doc([
        { kind: 'paragraph', text: 'Allowances per city:' },
        {
          kind: 'table',
          rows: [
            ['City', 'Per day'],
            ['Paris', '120 | 130 EUR'],
          ],
        },
      ]),
    );
    expect(children(chunks)).toHaveLength(1);
    expect(body(children(chunks)[0] as Chunk)).toBe(
      'Allowances per city:\n\n| City | Per day |\n| --- | --- |\n| Paris | 120 \\| 130 EUR |',
    );
    expect(children(chunks)[0]?.metadata['blockKinds']).toEqual(['paragraph', 'table']);
  });

  it('splits a table bigger than maxTokens between rows, repeating the header', () => {
    const rows = [['Employee', 'Department', 'Office']];
    for (let index = 0; index < 150; index++)
      rows.push([`Person ${index}`, `Team ${index % 7}`, `Floor ${index % 5}`]);
    const chunks = chunkDocument(doc([{ kind: 'table', rows }]), { maxTokens: 150 });
    expectWellFormed(chunks, 150);
    const kids = children(chunks);
    expect(kids.length).toBeGreaterThan(3);
    const header = '| Employee | Department | Office |\n| --- | --- | --- |\n';
    const dataRows: string[] = [];
    for (const chunk of kids) {
      expect(body(chunk).startsWith(header)).toBe(true);
      expect(chunk.metadata).toMatchObject({ blockKinds: ['table'], partial: true });
      dataRows.push(...body(chunk).slice(header.length).split('\n'));
    }
    expect(dataRows).toEqual(rows.slice(1).map((row) => `| ${row.join(' | ')} |`));
  });

  it('keeps list items together, and splits a long list only between items', () => {
    const short = chunkDocument(
      doc([{ kind: 'list', items: ['Ask your manager.', 'Book it in HR.'] }]),
    );
    expect(children(short).map(body)).toEqual(['- Ask your manager.\n- Book it in HR.']);

    const items = Array.from({ length: 60 }, (_, index) => sentence(index));
    const long = chunkDocument(doc([{ kind: 'list', items }]), { maxTokens: 100 });
    expectWellFormed(long, 100);
    const lines = children(long).flatMap((chunk) => body(chunk).split('\n'));
    expect(lines).toEqual(items.map((item) => `- ${item}`));
  });

  it('splits long code between lines, each piece fenced', () => {
    const lines = Array.from(
      { length: 80 },
      (_, index) => `const value${index} = compute(${index});`,
    );
    const chunks = chunkDocument(doc([{ kind: 'code', text: lines.join('\n') }]), {
      maxTokens: 100,
    });
    expectWellFormed(chunks, 100);
    const pieces = children(chunks).map(body);
    for (const piece of pieces) expect(piece).toMatch(/^```\n[\s\S]+\n```$/);
    expect(pieces.flatMap((piece) => piece.split('\n').slice(1, -1))).toEqual(lines);
  });

  it('makes section-sized parents, several for a long section', () => {
    const paragraphs = Array.from(
      { length: 60 },
      (_, index) => `${sentence(index)} ${sentence(index + 1000)}`,
    );
    const chunks = chunkDocument(doc(paragraphs.map((text) => ({ kind: 'paragraph', text }))), {
      maxTokens: 100,
      parentMaxTokens: 400,
    });
    expectWellFormed(chunks, 100);
    const parents = chunks.filter((chunk) => chunk.kind === 'parent');
    expect(parents.length).toBeGreaterThan(1);
    for (const parent of parents) {
      expect(parent.tokens).toBeLessThanOrEqual(400);
      const own = children(chunks).filter((chunk) => chunk.parentOrdinal === parent.ordinal);
      expect(body(parent)).toBe(own.map(body).join('\n\n'));
      expect(parent.metadata['children']).toBe(own.length);
    }
  });

  it('raises parentMaxTokens to maxTokens', () => {
    const text = Array.from({ length: 30 }, (_, index) => sentence(index)).join(' ');
    const chunks = chunkDocument(doc([{ kind: 'paragraph', text }]), {
      maxTokens: 200,
      parentMaxTokens: 50,
    });
    expectWellFormed(chunks, 200);
    for (const parent of chunks.filter((chunk) => chunk.kind === 'parent')) {
      expect(chunks.filter((chunk) => chunk.parentOrdinal === parent.ordinal)).toHaveLength(1);
    }
  });

  it('stops after the section in which the children pass stopAfterChildren', () => {
    const sections = Array.from({ length: 1000 }, (_, index) => ({
      path: [`Heading ${index}`],
      level: 1,
      blocks: [{ kind: 'paragraph' as const, text: `Paragraph number ${index}.` }],
    }));
    const chunks = chunkDocument({ docType: 'md', sections }, { stopAfterChildren: 10 });
    expect(children(chunks)).toHaveLength(11);
    expect(chunks.at(-1)?.section).toBe('Heading 10');
  });

  it('returns no chunks for a document without sections', () => {
    expect(chunkDocument({ docType: 'txt', sections: [] })).toEqual([]);
  });

  it('rejects a budget too small to hold a sentence', () => {
    expect(() => chunkDocument(doc([]), { maxTokens: 10 })).toThrow(ValidationError);
    expect(() => chunkDocument(doc([]), { maxTokens: 100.5 })).toThrow(
      'maxTokens must be an integer of at least 32; got 100.5.',
    );
  });
});
