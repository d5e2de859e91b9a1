import { crc32, deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { printable, type RequestCase } from './request-case';

/**
 * Documents and pages that cost a parser far more than their size — the shapes that once stalled
 * the RAG and web agents: spreadsheets thousands of columns wide, a shared string referenced by
 * thousands of cells, CSV headers 20,000 wide, HTML nested thousands deep, Markdown whose inline
 * parsing is quadratic, Markdown of a hundred thousand tiny structures. Each is valid and under
 * every size limit.
 */

/** One hostile document for `POST /v1/documents`. */
export interface HostileDocument {
  label: string;
  filename: string;
  mediaType: string;
  bytes: Buffer;
}

/** A ZIP of deflated entries (what an XLSX is). */
function zip(entries: readonly { name: string; data: string }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = Buffer.from(entry.data, 'utf8');
    const compressed = deflateRawSync(data);
    const name = Buffer.from(entry.name, 'utf8');
    const checksum = crc32(data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(checksum, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(checksum, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const S = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

/** A one-sheet workbook without `docProps/core.xml` (optional in the format). */
function workbook(rows: readonly string[], sharedStrings?: string): Buffer {
  const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
  const relationships = (body: string) =>
    `${HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${body}</Relationships>`;
  return zip([
    {
      name: '[Content_Types].xml',
      data: `${HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    },
    {
      name: '_rels/.rels',
      data: relationships(
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>',
      ),
    },
    {
      name: 'xl/workbook.xml',
      data: `${HEAD}<workbook ${S} ${R}><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: relationships(
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>',
      ),
    },
    {
      name: 'xl/worksheets/sheet1.xml',
      data: `${HEAD}<worksheet ${S}><sheetData>${rows.join('')}</sheetData></worksheet>`,
    },
    ...(sharedStrings === undefined
      ? []
      : [{ name: 'xl/sharedStrings.xml', data: `${HEAD}<sst ${S}>${sharedStrings}</sst>` }]),
  ]);
}

/** Excel's column letters for a 1-based column (16384 → XFD). */
function column(number: number): string {
  let name = '';
  for (let rest = number; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    name = String.fromCharCode(65 + ((rest - 1) % 26)) + name;
  }
  return name;
}

/** Words that compress like prose, from a seed. */
function prose(chars: number, seed: number): string {
  const words = ['ledger', 'sensor', 'quarter', 'gateway', 'warranty', 'humidity', 'renewal'];
  let state = seed;
  let text = '';
  while (text.length < chars) {
    state = (state * 1103515245 + 12345) % 2147483648;
    text += `${words[state % words.length] ?? 'word'}${state % 89} `;
  }
  return text.slice(0, chars);
}

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const inline = (reference: string, text: string) =>
  `<c r="${reference}" t="inlineStr"><is><t>${text}</t></is></c>`;

/** A sheet `columns` wide (Excel's widest is 16,384) whose `rows` rows hold only their first and last cell. */
export function wideSheet({ columns, rows }: { columns: number; rows: number }): HostileDocument {
  const last = column(columns);
  const body = [`<row r="1">${inline('A1', 'id')}${inline(`${last}1`, 'last')}</row>`];
  for (let row = 2; row <= rows + 1; row++) {
    body.push(
      `<row r="${row}"><c r="A${row}"><v>${row}</v></c><c r="${last}${row}"><v>1</v></c></row>`,
    );
  }
  return {
    label: `xlsx ${columns} columns × ${rows} rows, two cells a row`,
    filename: 'wide.xlsx',
    mediaType: XLSX,
    bytes: workbook(body),
  };
}

const wideSheets = fc
  .record({
    columns: fc.integer({ min: 300, max: 16_384 }),
    rows: fc.integer({ min: 1, max: 3000 }),
  })
  .map(wideSheet);

/** One shared string of up to 1 MiB referenced by up to 25,000 cells. */
const amplifiedSheet = fc
  .record({
    stringChars: fc.integer({ min: 10_000, max: 1024 * 1024 }),
    rows: fc.integer({ min: 10, max: 2500 }),
    columns: fc.integer({ min: 1, max: 10 }),
    seed: fc.nat(),
  })
  .map(({ stringChars, rows, columns, seed }): HostileDocument => {
    const body = [
      `<row r="1">${Array.from({ length: columns }, (_, index) => inline(`${column(index + 1)}1`, `Column ${index + 1}`)).join('')}</row>`,
    ];
    for (let row = 2; row <= rows + 1; row++) {
      const cells = Array.from(
        { length: columns },
        (_, index) => `<c r="${column(index + 1)}${row}" t="s"><v>0</v></c>`,
      );
      body.push(`<row r="${row}">${cells.join('')}</row>`);
    }
    return {
      label: `xlsx, one ${stringChars}-character shared string in ${rows * columns} cells`,
      filename: 'amplified.xlsx',
      mediaType: XLSX,
      bytes: workbook(body, `<si><t>${prose(stringChars, seed)}</t></si>`),
    };
  });

/** A CSV header up to 20,000 columns wide over short rows. */
const wideCsv = fc
  .record({
    columns: fc.integer({ min: 300, max: 20_000 }),
    rows: fc.integer({ min: 1, max: 500 }),
  })
  .map(({ columns, rows }): HostileDocument => {
    const lines = [Array.from({ length: columns }, (_, index) => `c${index}`).join(',')];
    for (let row = 1; row <= rows; row++) lines.push(`${row},value ${row}`);
    return {
      label: `csv ${columns} columns × ${rows} rows`,
      filename: 'wide.csv',
      mediaType: 'text/csv',
      bytes: Buffer.from(`${lines.join('\n')}\n`),
    };
  });

/** The tags nested in a deep page, opened and closed as a browser would read them. */
const NESTING = {
  div: ['<div>', '</div>'],
  span: ['<span>', '</span>'],
  section: ['<section><p>x</p>', '</section>'],
  table: ['<table><tr><td>', '</td></tr></table>'],
  list: ['<ul><li>', '</li></ul>'],
  bold: ['<b>', '</b>'],
} as const;

/** A nesting tag of {@link NESTING}. */
export type NestingTag = keyof typeof NESTING;

/** An HTML page that nests `tag` `depth` deep around a paragraph. */
export function deepPage(tag: NestingTag, depth: number): string {
  const [open, close] = NESTING[tag];
  return `<!doctype html><html><head><title>Deep ${tag}</title></head><body>${open.repeat(depth)}<p>${'Text at the bottom of the page. '.repeat(20)}</p>${close.repeat(depth)}</body></html>`;
}

const nestingTag = fc.constantFrom<NestingTag>('div', 'span', 'section', 'table', 'list', 'bold');

/** HTML nested 50 to 5,000 deep, uploaded. */
const deepHtml = fc
  .record({ tag: nestingTag, depth: fc.integer({ min: 50, max: 5000 }) })
  .map(({ tag, depth }): HostileDocument => ({
    label: `html, <${tag}> nested ${depth} deep`,
    filename: 'deep.html',
    mediaType: 'text/html',
    bytes: Buffer.from(deepPage(tag, depth)),
  }));

/** Markdown structures, each up to 256 KiB: quadratic inline runs and a hundred thousand tiny blocks. */
const MARKDOWN = {
  /** One paragraph of `a_b_a_b_…`: marked's emphasis scan is quadratic in it. */
  underscores: (size: number) => `# Notes\n\n${'a_b_'.repeat(size / 4)}\n`,
  underscoreWords: (size: number) => `# Notes\n\n${'a_b_ '.repeat(size / 5)}\n`,
  emphasis: (size: number) => `${'*a '.repeat(size / 3)}\n`,
  brackets: (size: number) => `${'[['.repeat(size / 4)}${']]'.repeat(size / 4)}\n`,
  headings: (size: number) => '# h\n'.repeat(size / 4),
  setext: (size: number) => 'a\n=\n'.repeat(size / 4),
  items: (size: number) => '- a\n'.repeat(size / 4),
  quotes: (size: number) => '> a\n'.repeat(size / 4),
  table: (size: number) => `|a|b|\n|-|-|\n${'|c|d|\n'.repeat(size / 6)}`,
  comments: (size: number) => '<!--'.repeat(size / 4),
} as const;

const hugeMarkdown = fc
  .record({
    shape: fc.constantFrom(...(Object.keys(MARKDOWN) as (keyof typeof MARKDOWN)[])),
    size: fc.integer({ min: 16 * 1024, max: 256 * 1024 }),
  })
  .map(({ shape, size }): HostileDocument => ({
    label: `markdown ${shape}, ${size} bytes`,
    filename: 'huge.md',
    mediaType: 'text/markdown',
    bytes: Buffer.from(MARKDOWN[shape](size)),
  }));

/** Every hostile document shape. */
export const hostileDocument: fc.Arbitrary<HostileDocument> = fc.oneof(
  wideSheets,
  amplifiedSheet,
  wideCsv,
  deepHtml,
  hugeMarkdown,
);

/** `POST /v1/documents` of one file, as a browser sends it (multipart, chunked). */
export function uploadRequest(key: string, document: HostileDocument): RequestCase {
  const boundary = 'fuzz-hostile-4b1d';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${document.filename}"\r\nContent-Type: ${document.mediaType}\r\n\r\n`,
    ),
    document.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return printable({
    label: `documents ${document.label} (${document.bytes.length} bytes)`,
    method: 'POST',
    path: '/v1/documents',
    headers: [
      ['Host', '127.0.0.1'],
      ['Connection', 'close'],
      ['Authorization', `Bearer ${key}`],
      ['Content-Type', `multipart/form-data; boundary=${boundary}`],
      ['Transfer-Encoding', 'chunked'],
    ],
    body,
    chunkSize: 256 * 1024,
  });
}

/** A page the hostile page server serves: nested `tag` `depth` deep, or many nested blocks. */
export type HostilePage =
  | { kind: 'deep'; tag: NestingTag; depth: number }
  | { kind: 'blocks'; blocks: number; depth: number };

/** The path the hostile page server serves a page at. */
export function hostilePagePath(page: HostilePage): string {
  return page.kind === 'deep'
    ? `/deep/${page.tag}/${page.depth}`
    : `/blocks/${page.blocks}/${page.depth}`;
}

/** The HTML of a page path (see {@link hostilePagePath}); undefined for any other path. */
export function hostilePageHtml(path: string): string | undefined {
  const deep = /^\/deep\/(\w+)\/(\d+)$/.exec(path);
  if (deep !== null && deep[1] !== undefined && deep[1] in NESTING) {
    return deepPage(deep[1] as NestingTag, Number(deep[2]));
  }
  const blocks = /^\/blocks\/(\d+)\/(\d+)$/.exec(path);
  if (blocks !== null) {
    const depth = Number(blocks[2]);
    const block = `${'<div>'.repeat(depth)}<p>Some words of text in a block.</p>${'</div>'.repeat(depth)}`;
    return `<!doctype html><html><head><title>Blocks</title></head><body>${block.repeat(Number(blocks[1]))}</body></html>`;
  }
  return undefined;
}

/** Pages nested 50 to 5,000 deep, and up to 500 blocks of nested `<div>`s (pages up to ~1.6 MB). */
export const hostilePage: fc.Arbitrary<HostilePage> = fc.oneof(
  fc.record({
    kind: fc.constant('deep' as const),
    tag: nestingTag,
    depth: fc.integer({ min: 50, max: 5000 }),
  }),
  fc.record({
    kind: fc.constant('blocks' as const),
    blocks: fc.integer({ min: 10, max: 500 }),
    depth: fc.integer({ min: 10, max: 140 }),
  }),
);

/** A task that asks the web agent to read a page: `SendMessage` over A2A, as the orchestrator sends it. */
export function readPageRequest({
  token,
  url,
  tenant,
}: {
  token: string;
  url: string;
  tenant: string;
}): RequestCase {
  const body = Buffer.from(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: {
          messageId: `fuzz-${Math.random().toString(36).slice(2)}`,
          role: 'ROLE_USER',
          parts: [
            { text: `Read this page: ${url}` },
            {
              data: { fleet: { tenant, sessionId: 'fuzz', nodeId: 'read', dependencyOutputs: {} } },
            },
          ],
        },
      },
    }),
  );
  return printable({
    label: `read page ${url}`,
    method: 'POST',
    path: '/a2a',
    headers: [
      ['Host', '127.0.0.1'],
      ['Connection', 'close'],
      ['Authorization', `Bearer ${token}`],
      ['A2A-Version', '1.0'],
      ['Content-Type', 'application/json'],
      ['Content-Length', String(body.length)],
    ],
    body,
  });
}
