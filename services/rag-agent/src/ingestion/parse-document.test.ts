import { describe, expect, it } from '@jest/globals';
import JSZip from 'jszip';
import { buildDocx, buildPdf, buildXlsx, lockPdf, utf8 } from './__fixtures__/build-fixtures';
import { DocumentParseError } from './document-parse-error';
import { parseDocument } from './parse-document';
import { MAX_INLINE_CHARS } from './parsers/parse-markdown';
import type { Block, ParsedDocument, Section } from './types';
import { UnsupportedDocumentError } from './unsupported-document-error';

async function parseFailure(promise: Promise<unknown>): Promise<DocumentParseError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DocumentParseError);
  return error as DocumentParseError;
}

function section(doc: ParsedDocument, path: string[]): Section {
  const found = doc.sections.find((candidate) => candidate.path.join('>') === path.join('>'));
  if (!found) throw new Error(`no section ${path.join(' > ')} in ${JSON.stringify(doc.sections)}`);
  return found;
}

function paragraphs(blocks: readonly Block[]): string[] {
  return blocks.flatMap((block) => (block.kind === 'paragraph' ? [block.text] : []));
}

describe('parseDocument', () => {
  describe('PDF', () => {
    const report = buildPdf([
      [
        { text: 'Quarterly Report', size: 22, gap: 34 },
        'Revenue grew by 12 percent in the third quarter, driven by the',
        { text: 'new enterprise plan. Costs were flat.', gap: 36 },
        { text: 'Hiring slowed in September.', gap: 34 },
        { text: 'Outlook', size: 16, gap: 26 },
        '• Expand into two new regions',
        { text: '• Launch the partner programme', gap: 40 },
        'Summary',
        { text: 'The board approved the budget.', gap: 500 },
        '1',
      ],
      [
        'Churn fell to three percent after the support team was reorga-',
        'nised into regional pods.',
        { text: 'Appendix', size: 16, gap: 26 },
        { text: 'Figures are unaudited.', gap: 580 },
        '2',
      ],
    ]);

    it('keeps pages, paragraphs, lists and size-based headings', async () => {
      const doc = await parseDocument({ filename: 'q3-report.pdf', bytes: report });
      expect(doc.docType).toBe('pdf');
      expect(doc.pages).toBe(2);
      expect(doc.title).toBe('Quarterly Report');
      expect(doc.sections.map((part) => part.path)).toEqual([
        ['Quarterly Report'],
        ['Quarterly Report', 'Outlook'],
        ['Quarterly Report', 'Appendix'],
      ]);
      expect(section(doc, ['Quarterly Report']).blocks).toEqual([
        {
          kind: 'paragraph',
          text: 'Revenue grew by 12 percent in the third quarter, driven by the new enterprise plan. Costs were flat.',
          page: 1,
        },
        { kind: 'paragraph', text: 'Hiring slowed in September.', page: 1 },
      ]);
      const outlook = section(doc, ['Quarterly Report', 'Outlook']);
      expect(outlook.level).toBe(2);
      expect(outlook.blocks[0]).toEqual({
        kind: 'list',
        items: ['Expand into two new regions', 'Launch the partner programme'],
        page: 1,
      });
      // A body-sized short line is not taken for a heading; the text carries on to page 2.
      expect(paragraphs(outlook.blocks)).toEqual([
        'Summary The board approved the budget.',
        'Churn fell to three percent after the support team was reorganised into regional pods.',
      ]);
      expect(outlook.blocks.map((block) => block.page)).toEqual([1, 1, 2]);
      expect(section(doc, ['Quarterly Report', 'Appendix'])).toMatchObject({ page: 2, level: 2 });
    });

    it('drops page numbers', async () => {
      const doc = await parseDocument({ filename: 'q3-report.pdf', bytes: report });
      const text = JSON.stringify(doc.sections);
      expect(text).not.toMatch(/"1"|"2"/);
      expect(text).not.toMatch(/ 1"| 2"/);
    });

    it('reports a truncated PDF as damaged, naming the file', async () => {
      const error = await parseFailure(
        parseDocument({ filename: 'broken.pdf', bytes: report.subarray(0, 300) }),
      );
      expect(error.message).toBe(
        'Cannot read "broken.pdf": it is not a valid PDF (the file may be damaged or truncated).',
      );
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.status).toBe(400);
      expect(error.details).toMatchObject({ filename: 'broken.pdf', reason: 'invalid' });
    });

    it('reports a password-protected PDF as such', async () => {
      const error = await parseFailure(
        parseDocument({ filename: 'locked.pdf', bytes: lockPdf(report) }),
      );
      expect(error.message).toBe('Cannot read "locked.pdf": it is password-protected.');
      expect(error.details).toMatchObject({ filename: 'locked.pdf', reason: 'password' });
    });

    it('reports a PDF without a text layer as having no text', async () => {
      const error = await parseFailure(
        parseDocument({ filename: 'scan.pdf', bytes: buildPdf([[]]) }),
      );
      expect(error.message).toBe(
        'scan.pdf has no text to index (a scanned PDF has no text layer; OCR is not supported).',
      );
    });
  });

  describe('DOCX', () => {
    it('reads heading styles, paragraphs, lists and tables', async () => {
      const bytes = await buildDocx([
        { paragraph: 'Employee Handbook', style: 'Title' },
        { paragraph: 'Welcome to the company.' },
        { paragraph: 'Leave', style: 'Heading1' },
        { paragraph: 'Staff get 25 days of annual leave a year.' },
        { bullet: 'Ask your manager first.' },
        { bullet: 'Book it in the HR system.' },
        { paragraph: 'Sick leave', style: 'Heading2' },
        {
          table: [
            ['Days off sick', 'Pay'],
            ['1 to 5', 'Full pay'],
            ['6 to 20', 'Half pay'],
          ],
        },
        { paragraph: 'Expenses', style: 'Heading1' },
        { paragraph: 'Receipts are required for anything over 20 euros.' },
      ]);
      const doc = await parseDocument({ filename: 'handbook.docx', bytes });
      expect(doc.docType).toBe('docx');
      expect(doc.title).toBe('Employee Handbook');
      expect(doc.sections).toEqual([
        { path: [], level: 0, blocks: [{ kind: 'paragraph', text: 'Welcome to the company.' }] },
        {
          path: ['Leave'],
          level: 1,
          blocks: [
            { kind: 'paragraph', text: 'Staff get 25 days of annual leave a year.' },
            { kind: 'list', items: ['Ask your manager first.', 'Book it in the HR system.'] },
          ],
        },
        {
          path: ['Leave', 'Sick leave'],
          level: 2,
          blocks: [
            {
              kind: 'table',
              rows: [
                ['Days off sick', 'Pay'],
                ['1 to 5', 'Full pay'],
                ['6 to 20', 'Half pay'],
              ],
            },
          ],
        },
        {
          path: ['Expenses'],
          level: 1,
          blocks: [
            { kind: 'paragraph', text: 'Receipts are required for anything over 20 euros.' },
          ],
        },
      ]);
    });

    it('reports a truncated .docx as damaged', async () => {
      const bytes = await buildDocx([{ paragraph: 'Hello '.repeat(2000) }]);
      const error = await parseFailure(
        parseDocument({ filename: 'cut.docx', bytes: bytes.subarray(0, bytes.length - 200) }),
      );
      expect(error.message).toBe(
        'Cannot read "cut.docx": it is not a valid Word document (the file may be damaged or truncated).',
      );
      expect(error.cause).toBeDefined();
    });

    it('reports a zip with a broken document part as damaged', async () => {
      const zip = new JSZip();
      zip.file('word/document.xml', '<w:document><w:body><w:p>');
      const bytes = await zip.generateAsync({ type: 'uint8array' });
      const error = await parseFailure(parseDocument({ filename: 'odd.docx', bytes }));
      expect(error.message).toContain('Cannot read "odd.docx"');
    });
  });

  describe('XLSX', () => {
    it('makes one table section per sheet, with readable numbers and dates', async () => {
      const bytes = await buildXlsx([
        {
          name: 'Sales',
          rows: [
            ['Region', 'Revenue', 'Closed on'],
            ['North', 1200.5, new Date(Date.UTC(2024, 0, 31))],
            ['South', 0.1 + 0.2, new Date(Date.UTC(2024, 1, 29))],
          ],
        },
        {
          name: 'Costs',
          rows: [
            ['Item', 'Cost'],
            ['Rent', 5000],
          ],
        },
      ]);
      const doc = await parseDocument({ filename: 'figures.xlsx', bytes });
      expect(doc.docType).toBe('xlsx');
      expect(doc.title).toBe('figures');
      expect(doc.sections).toEqual([
        {
          path: ['Sales'],
          level: 1,
          blocks: [
            {
              kind: 'table',
              rows: [
                ['Region', 'Revenue', 'Closed on'],
                ['North', '1200.5', '2024-01-31'],
                ['South', '0.3', '2024-02-29'],
              ],
            },
          ],
        },
        {
          path: ['Costs'],
          level: 1,
          blocks: [
            {
              kind: 'table',
              rows: [
                ['Item', 'Cost'],
                ['Rent', '5000'],
              ],
            },
          ],
        },
      ]);
    });

    it('cuts a long sheet into 50-row tables with the header repeated, and notes truncation', async () => {
      const rows: (string | number)[][] = [['Order', 'Customer']];
      for (let index = 1; index <= 5120; index++) rows.push([index, `Customer ${index}`]);
      const doc = await parseDocument({
        filename: 'orders.xlsx',
        bytes: await buildXlsx([{ name: 'Orders', rows }]),
      });
      const blocks = section(doc, ['Orders']).blocks;
      const tables = blocks.filter((block) => block.kind === 'table');
      expect(tables).toHaveLength(100);
      for (const table of tables) {
        expect(table.rows[0]).toEqual(['Order', 'Customer']);
        expect(table.rows.length).toBe(51);
      }
      expect(tables[1]?.rows[1]).toEqual(['51', 'Customer 51']);
      expect(tables[99]?.rows[50]).toEqual(['5000', 'Customer 5000']);
      expect(blocks[blocks.length - 1]).toEqual({
        kind: 'paragraph',
        text: 'Table truncated: the first 5000 of 5120 rows are indexed.',
      });
      expect(doc.metadata).toEqual({
        truncatedSheets: [{ sheet: 'Orders', rows: 5120, keptRows: 5000 }],
      });
    });

    it('reports a truncated workbook as damaged', async () => {
      const bytes = await buildXlsx([{ name: 'S', rows: [['a', 'b']] }]);
      const error = await parseFailure(
        parseDocument({ filename: 'cut.xlsx', bytes: bytes.subarray(0, bytes.length - 300) }),
      );
      expect(error.message).toBe(
        'Cannot read "cut.xlsx": it is not a valid Excel workbook (the file may be damaged or truncated).',
      );
    });
  });

  describe('CSV', () => {
    it('reads one table, with quoted fields and a BOM', async () => {
      const csv =
        '\ufeffname,city,note\nAda,London,"likes ""maths"", tea"\nGrace,"New York","multi\nline"\n\n';
      const doc = await parseDocument({ filename: 'people.csv', bytes: utf8(csv) });
      expect(doc.sections).toEqual([
        {
          path: [],
          level: 0,
          blocks: [
            {
              kind: 'table',
              rows: [
                ['name', 'city', 'note'],
                ['Ada', 'London', 'likes "maths", tea'],
                ['Grace', 'New York', 'multi line'],
              ],
            },
          ],
        },
      ]);
      expect(doc.title).toBe('people');
    });

    it('sniffs a semicolon delimiter', async () => {
      const doc = await parseDocument({
        filename: 'prices.csv',
        bytes: utf8('item;price\nbread;2,50\nmilk;1,20\n'),
      });
      expect(doc.sections[0]?.blocks[0]).toEqual({
        kind: 'table',
        rows: [
          ['item', 'price'],
          ['bread', '2,50'],
          ['milk', '1,20'],
        ],
      });
    });

    it('splits long files into 50-row tables with the header repeated', async () => {
      const lines = [
        'id,value',
        ...Array.from({ length: 120 }, (_, index) => `${index + 1},v${index + 1}`),
      ];
      const doc = await parseDocument({ filename: 'long.csv', bytes: utf8(lines.join('\n')) });
      const tables = doc.sections[0]?.blocks ?? [];
      expect(tables.map((block) => (block.kind === 'table' ? block.rows.length : 0))).toEqual([
        51, 51, 21,
      ]);
      expect(tables[2]).toMatchObject({
        rows: expect.arrayContaining([
          ['id', 'value'],
          ['120', 'v120'],
        ]),
      });
    });

    it('reports malformed CSV with the line', async () => {
      const error = await parseFailure(
        parseDocument({ filename: 'bad.csv', bytes: utf8('a,b\n1,"unterminated\n2,3\n') }),
      );
      expect(error.message).toMatch(/^Cannot read "bad\.csv": it is not valid CSV/);
    });
  });

  describe('Markdown', () => {
    it('reads headings, paragraphs, lists, tables and code', async () => {
      const markdown = [
        '---',
        'title: "Runbook"',
        'owner: ops',
        '---',
        '# Deploys',
        '',
        'Deploys run **every weekday** at 10:00 &amp; never on Fridays.',
        '',
        '- Check the [dashboard](https://example.com)',
        '- Announce in chat',
        '  - with the ticket number',
        '',
        '## Rollback',
        '',
        '| Step | Command |',
        '|------|---------|',
        '| 1 | `fleet down` |',
        '',
        '```bash',
        'git revert HEAD',
        '```',
        '',
        '> Rollbacks need a second reviewer.',
        '',
        'Escalation',
        '----------',
        '',
        '<p>Call the <b>on-call</b> lead.</p>',
      ].join('\n');
      const doc = await parseDocument({ filename: 'runbook.md', bytes: utf8(markdown) });
      expect(doc.title).toBe('Runbook');
      expect(doc.sections).toEqual([
        {
          path: ['Deploys'],
          level: 1,
          blocks: [
            { kind: 'paragraph', text: 'Deploys run every weekday at 10:00 & never on Fridays.' },
            {
              kind: 'list',
              items: ['Check the dashboard', 'Announce in chat\n  - with the ticket number'],
            },
          ],
        },
        {
          path: ['Deploys', 'Rollback'],
          level: 2,
          blocks: [
            {
              kind: 'table',
              rows: [
                ['Step', 'Command'],
                ['1', 'fleet down'],
              ],
            },
            { kind: 'code', text: 'git revert HEAD' },
            { kind: 'paragraph', text: 'Rollbacks need a second reviewer.' },
          ],
        },
        {
          path: ['Deploys', 'Escalation'],
          level: 2,
          blocks: [{ kind: 'paragraph', text: 'Call the on-call lead.' }],
        },
      ]);
    });

    it('decodes HTML character references in text and HTML blocks', async () => {
      const markdown = [
        'Caf&eacute; &ndash; 5&nbsp;&euro; &#x2713; &unknown; AT&T',
        '',
        '<p>R&eacute;sum&eacute; &lt;draft&gt;</p>',
      ].join('\n');
      const doc = await parseDocument({ filename: 'notes.md', bytes: utf8(markdown) });
      expect(doc.sections[0]?.blocks).toEqual([
        { kind: 'paragraph', text: 'Café – 5 € ✓ &unknown; AT&T' },
        { kind: 'paragraph', text: 'Résumé <draft>' },
      ]);
    });

    it('keeps an inline run longer than MAX_INLINE_CHARS as plain text, without inline parsing', async () => {
      // marked's emphasis scan is quadratic in such a run: 256 KiB of `a_b_` took two minutes.
      const long = Array.from({ length: 800 }, (_, index) => `*word${index}*`).join(' ');
      const markdown = `Some *short* text.\n\n${long}\n`;
      const doc = await parseDocument({ filename: 'long.md', bytes: utf8(markdown) });
      expect(doc.sections[0]?.blocks).toEqual([
        { kind: 'paragraph', text: 'Some short text.' },
        { kind: 'paragraph', text: long },
      ]);
      expect(long.length).toBeGreaterThan(MAX_INLINE_CHARS);
    });
  });

  describe('HTML', () => {
    it('reads structure and strips scripts, styles, navigation and page furniture', async () => {
      const html = `<!doctype html><html><head><title>Travel Policy</title>
        <style>body { color: red }</style><script>track("visit")</script></head>
        <body>
          <header><a href="/">Acme Intranet</a></header>
          <nav><ul><li>Home</li><li>Policies</li></ul></nav>
          <h1>Travel</h1>
          <p>Book trains for trips
             under <em>four hours</em>.</p>
          <div>Loose text in a div.<br>Second line.</div>
          <h2>Allowances</h2>
          <table><thead><tr><th>City</th><th>Per day</th></tr></thead>
            <tbody><tr><td>Paris</td><td>120 EUR</td></tr><tr><td>Berlin</td><td>100 EUR</td></tr></tbody></table>
          <ol><li>Keep receipts</li><li>Claim within <strong>30 days</strong></li></ol>
          <pre>  indented
    code</pre>
          <p hidden>Secret draft text.</p>
          <script>alert("x")</script>
          <footer>Copyright Acme</footer>
        </body></html>`;
      const doc = await parseDocument({ filename: 'travel.html', bytes: utf8(html) });
      expect(doc.title).toBe('Travel Policy');
      expect(doc.sections).toEqual([
        {
          path: ['Travel'],
          level: 1,
          blocks: [
            { kind: 'paragraph', text: 'Book trains for trips under four hours.' },
            { kind: 'paragraph', text: 'Loose text in a div.\nSecond line.' },
          ],
        },
        {
          path: ['Travel', 'Allowances'],
          level: 2,
          blocks: [
            {
              kind: 'table',
              rows: [
                ['City', 'Per day'],
                ['Paris', '120 EUR'],
                ['Berlin', '100 EUR'],
              ],
            },
            { kind: 'list', items: ['Keep receipts', 'Claim within 30 days'] },
            { kind: 'code', text: '  indented\n    code' },
          ],
        },
      ]);
      const text = JSON.stringify(doc);
      for (const unwanted of [
        'track',
        'alert',
        'color',
        'Intranet',
        'Policies',
        'Secret',
        'Copyright',
      ]) {
        expect(text).not.toContain(unwanted);
      }
    });

    it('reads only <main> when a page has one', async () => {
      const html =
        '<body><div class="sidebar"><p>Sidebar links</p></div><main><h1>Guide</h1><p>Main text.</p></main></body>';
      const doc = await parseDocument({ filename: 'guide.htm', bytes: utf8(html) });
      expect(doc.sections).toEqual([
        { path: ['Guide'], level: 1, blocks: [{ kind: 'paragraph', text: 'Main text.' }] },
      ]);
      expect(doc.title).toBe('Guide');
    });
  });

  describe('TXT', () => {
    it('splits paragraphs on blank lines and guesses headings conservatively', async () => {
      const text = [
        'EMPLOYEE GUIDE',
        '',
        'This guide explains how we work.',
        'Lines wrapped by hand are joined.',
        '',
        'Working hours',
        '=============',
        '',
        'Core hours are 10:00 to 16:00.',
        '',
        '1 Remote work',
        '',
        'Remote work needs a manager approval.',
        '',
        '1.1 Equipment',
        '',
        'Laptops are provided.',
        '',
        '----------',
        '',
        'Short line',
        '',
        '- first point',
        '- second point',
        '  continues here',
        '',
        '1. Buy milk',
        '',
        '2. Buy eggs',
        '',
        'THE END',
      ].join('\r\n');
      const doc = await parseDocument({ filename: 'guide.txt', bytes: utf8(text) });
      expect(doc.title).toBe('EMPLOYEE GUIDE');
      expect(doc.sections).toEqual([
        {
          path: ['EMPLOYEE GUIDE'],
          level: 1,
          blocks: [
            {
              kind: 'paragraph',
              text: 'This guide explains how we work. Lines wrapped by hand are joined.',
            },
          ],
        },
        {
          path: ['EMPLOYEE GUIDE', 'Working hours'],
          level: 2,
          blocks: [{ kind: 'paragraph', text: 'Core hours are 10:00 to 16:00.' }],
        },
        {
          path: ['EMPLOYEE GUIDE', 'Working hours', '1 Remote work'],
          level: 3,
          blocks: [{ kind: 'paragraph', text: 'Remote work needs a manager approval.' }],
        },
        {
          path: ['EMPLOYEE GUIDE', 'Working hours', '1 Remote work', '1.1 Equipment'],
          level: 4,
          blocks: [
            { kind: 'paragraph', text: 'Laptops are provided.' },
            { kind: 'paragraph', text: 'Short line' },
            { kind: 'list', items: ['first point', 'second point continues here'] },
            { kind: 'list', items: ['Buy milk'] },
            { kind: 'list', items: ['Buy eggs'] },
            { kind: 'paragraph', text: 'THE END' },
          ],
        },
      ]);
    });

    it('decodes Windows-1252 and UTF-16 text', async () => {
      const latin = Uint8Array.from([...Buffer.from('Caf', 'latin1'), 0xe9, 0x20, 0x80, 0x35]);
      const utf16 = Uint8Array.from([0xff, 0xfe, ...Buffer.from('Grüße', 'utf16le')]);
      const first = await parseDocument({ filename: 'menu.txt', bytes: latin });
      const second = await parseDocument({ filename: 'greeting.txt', bytes: utf16 });
      expect(first.sections[0]?.blocks[0]).toEqual({ kind: 'paragraph', text: 'Café €5' });
      expect(second.sections[0]?.blocks[0]).toEqual({ kind: 'paragraph', text: 'Grüße' });
    });
  });

  describe('empty and mismatched files', () => {
    it.each([
      ['empty.txt', ''],
      ['blank.txt', '  \n\n\t \r\n'],
      ['blank.md', '\n\n---\n\n'],
      [
        'scripts.html',
        '<html><head><title>x</title></head><body><script>x()</script></body></html>',
      ],
      ['empty.csv', '\n\n'],
    ])('reports %s as having no text', async (filename, content) => {
      const error = await parseFailure(parseDocument({ filename, bytes: utf8(content) }));
      expect(error.message).toBe(`${filename} has no text to index.`);
    });

    it('reports an empty PDF as having no text', async () => {
      const error = await parseFailure(
        parseDocument({ filename: 'none.pdf', bytes: new Uint8Array() }),
      );
      expect(error.message).toBe('none.pdf has no text to index.');
    });

    it('refuses notes.pdf that holds text before parsing anything', async () => {
      await expect(
        parseDocument({ filename: 'notes.pdf', bytes: utf8('Meeting notes: ship on Monday.') }),
      ).rejects.toBeInstanceOf(UnsupportedDocumentError);
    });
  });
});
