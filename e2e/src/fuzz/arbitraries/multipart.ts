import fc from 'fast-check';
import { hugeText, unicodeText } from './common';
import { authorization } from './gateway';
import { printable, type RequestCase } from './request-case';

/** One part of a generated multipart body. */
interface Part {
  name: string | undefined;
  filename: string | undefined;
  /** Use RFC 5987 `filename*=` instead. */
  extendedFilename: boolean;
  contentType: string | undefined;
  content: Buffer;
  /** Extra part header lines (garbage, duplicates). */
  extra: string[];
}

const DOCUMENT_TYPES = [
  'text/plain',
  'text/markdown',
  'text/html',
  'text/csv',
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/octet-stream',
  'image/png',
  'application/x-msdownload',
] as const;

const filename = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      'notes.txt',
      'guide.md',
      'page.html',
      'data.csv',
      'report.pdf',
      'memo.docx',
      'sheet.xlsx',
      'a.exe',
      'noext',
    ),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '../../etc/passwd',
      '..\\..\\boot.ini',
      '',
      ' ',
      '.md',
      'a\u0000b.txt',
      'résumé 😀.md',
      'x"y.txt',
      'C:\\temp\\x.txt',
      '/abs/path.md',
      '\u202Etxt.exe',
    ),
  },
  { weight: 2, arbitrary: unicodeText(60).map((value) => `${value}.txt`) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 256, max: 4096 }).map((size) => `${'n'.repeat(size)}.md`),
  },
);

/** Small documents: text that ingests, binary that does not, a fake PDF, fake zips. */
const content = fc.oneof(
  { weight: 6, arbitrary: unicodeText(400).map((text) => Buffer.from(`# Fuzz\n\n${text}\n`)) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      Buffer.from(
        '%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF',
      ),
      Buffer.from('%PDF-1.4\n'),
      Buffer.from('PK\u0003\u0004garbage-that-is-not-a-zip'),
      Buffer.from('PK\u0005\u0006\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'),
      Buffer.from('a,b,c\n1,2\n"unterminated,3\n'),
      Buffer.from('<html><body><script>alert(1)</script><p>hi</p></body></html>'),
      Buffer.alloc(0),
    ),
  },
  { weight: 1, arbitrary: hugeText(256 * 1024).map((text) => Buffer.from(text)) },
);

const part: fc.Arbitrary<Part> = fc.record({
  name: fc.oneof(
    { weight: 6, arbitrary: fc.constant('file') },
    { weight: 3, arbitrary: fc.constantFrom('purpose', 'FILE', 'file[]', '', 'files') },
    { weight: 1, arbitrary: fc.constant(undefined) },
  ),
  filename: fc.option(filename, { nil: undefined, freq: 5 }),
  extendedFilename: fc.boolean(),
  contentType: fc.option(
    fc.oneof(
      fc.constantFrom(...DOCUMENT_TYPES),
      fc.constantFrom('', 'text/plain; charset=utf-16', 'multipart/mixed; boundary=inner'),
    ),
    { nil: undefined, freq: 6 },
  ),
  content,
  extra: fc.array(
    fc.constantFrom(
      'Content-Transfer-Encoding: base64',
      'Content-Disposition: form-data; name="file"; filename="dup.md"',
      'Content-Type: text/plain',
      'X-Garbage: \u00ff\u00fe',
      'no-colon-header',
    ),
    { maxLength: 2 },
  ),
});

/** A part that ingests: a small text document in the `file` field. */
const goodFile: fc.Arbitrary<Part> = fc.record({
  name: fc.constant('file'),
  filename: fc.constantFrom('notes.txt', 'guide.md', 'page.html', 'data.csv'),
  extendedFilename: fc.constant(false),
  contentType: fc.constantFrom('text/plain', 'text/markdown', 'text/html', 'text/csv', undefined),
  content: unicodeText(400).map((text) => Buffer.from(`# Fuzz document\n\n${text}\n`)),
  extra: fc.constant([]),
});

/** The parts: mostly one good file among other fields; sometimes anything. */
const parts = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.array(part, { maxLength: 2 }), goodFile, fc.array(part, { maxLength: 2 }))
      .map(([before, file, after]) => [...before, file, ...after]),
  },
  { weight: 2, arbitrary: fc.array(part, { minLength: 0, maxLength: 5 }) },
);

function partBytes(boundary: string, each: Part): Buffer {
  const disposition = ['Content-Disposition: form-data'];
  if (each.name !== undefined) disposition.push(`name="${each.name}"`);
  if (each.filename !== undefined) {
    disposition.push(
      each.extendedFilename
        ? `filename*=UTF-8''${encodeURIComponent(each.filename.replace(/[\uD800-\uDFFF]/g, ''))}`
        : `filename="${each.filename}"`,
    );
  }
  const lines = [`--${boundary}`, disposition.join('; ')];
  if (each.contentType !== undefined) lines.push(`Content-Type: ${each.contentType}`);
  lines.push(...each.extra);
  return Buffer.concat([
    Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'),
    each.content,
    Buffer.from('\r\n'),
  ]);
}

/**
 * `POST /v1/documents` with a generated multipart body: one file or several, interleaved fields,
 * duplicate `file` parts, odd file names and types; a boundary that is missing, wrong or quoted; no
 * closing boundary; and the body cut off at a random byte (really: the socket is half-closed
 * there) or declared short, sent in chunks, or declared far larger than the limit.
 */
export const documentUploadCase = (key: string): fc.Arbitrary<RequestCase> =>
  fc
    .record({
      boundary: fc.oneof(
        { weight: 6, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,70}$/) },
        {
          weight: 1,
          arbitrary: fc.oneof(
            fc.stringMatching(/^[A-Za-z0-9'()+_,./:=? -]{1,70}$/),
            fc.constantFrom('----x', 'a b', '"quoted"', 'x'.repeat(200), '\u00e9', ''),
          ),
        },
      ),
      parts,
      preamble: fc.constantFrom('', 'preamble text\r\n', '\r\n\r\n'),
      closing: fc.oneof(
        { weight: 6, arbitrary: fc.constant('close') },
        { weight: 1, arbitrary: fc.constantFrom('none', 'close-no-crlf', 'close-twice') },
      ),
      header: fc.oneof(
        { weight: 8, arbitrary: fc.constant('normal') },
        {
          weight: 3,
          arbitrary: fc.constantFrom(
            'no-boundary',
            'wrong-boundary',
            'quoted',
            'none',
            'text/plain',
            'two',
            'upper',
          ),
        },
      ),
      framing: fc.oneof(
        { weight: 4, arbitrary: fc.constant('length') },
        {
          weight: 3,
          arbitrary: fc.constantFrom('chunked', 'cut', 'cut', 'short-length', 'huge-length'),
        },
      ),
      cutAt: fc.nat(),
      authorization: authorization(key),
      encoding: fc.oneof(
        { weight: 10, arbitrary: fc.constant<string[]>([]) },
        { weight: 1, arbitrary: fc.constantFrom<string[]>(['gzip'], ['x-garbage'], ['identity']) },
      ),
    })
    .map(
      ({
        boundary,
        parts,
        preamble,
        closing,
        header,
        framing,
        cutAt,
        authorization: auth,
        encoding,
      }) => {
        const pieces = [Buffer.from(preamble), ...parts.map((each) => partBytes(boundary, each))];
        if (closing === 'close') pieces.push(Buffer.from(`--${boundary}--\r\n`));
        if (closing === 'close-no-crlf') pieces.push(Buffer.from(`--${boundary}--`));
        if (closing === 'close-twice')
          pieces.push(Buffer.from(`--${boundary}--\r\n--${boundary}--\r\n`));
        const body = Buffer.concat(pieces);
        const headers: [string, string][] = [
          ['Host', '127.0.0.1'],
          ['Connection', 'close'],
        ];
        for (const value of auth) headers.push(['Authorization', value]);
        const type = `multipart/form-data; boundary=${boundary}`;
        switch (header) {
          case 'normal':
            headers.push(['Content-Type', type]);
            break;
          case 'no-boundary':
            headers.push(['Content-Type', 'multipart/form-data']);
            break;
          case 'wrong-boundary':
            headers.push(['Content-Type', 'multipart/form-data; boundary=not-the-boundary']);
            break;
          case 'quoted':
            headers.push(['Content-Type', `multipart/form-data; boundary="${boundary}"`]);
            break;
          case 'text/plain':
            headers.push(['Content-Type', 'text/plain']);
            break;
          case 'two':
            headers.push(
              ['Content-Type', type],
              ['Content-Type', 'multipart/form-data; boundary=other'],
            );
            break;
          case 'upper':
            headers.push(['CONTENT-TYPE', `MULTIPART/FORM-DATA; BOUNDARY=${boundary}`]);
            break;
          case 'none':
            break;
        }
        for (const value of encoding) headers.push(['Content-Encoding', value]);
        let truncateAt: number | undefined;
        let chunkSize: number | undefined;
        let sent = body;
        switch (framing) {
          case 'chunked':
            headers.push(['Transfer-Encoding', 'chunked']);
            chunkSize = 1 + (cutAt % 4096);
            break;
          case 'cut':
            headers.push(['Content-Length', String(body.length)]);
            truncateAt = body.length === 0 ? 0 : cutAt % body.length;
            break;
          case 'short-length':
            // Declared and sent short: a complete request whose multipart is cut off.
            sent = body.subarray(0, body.length === 0 ? 0 : cutAt % body.length);
            headers.push(['Content-Length', String(sent.length)]);
            break;
          case 'huge-length':
            // Over the 25 MiB upload limit by declaration; the bytes stop early (FIN).
            headers.push(['Content-Length', String(30 * 1024 * 1024 + (cutAt % 1_000_000))]);
            truncateAt = body.length;
            break;
          case 'length':
            headers.push(['Content-Length', String(body.length)]);
        }
        return printable({
          label: `documents ${header}/${framing}/${closing}`,
          method: 'POST',
          path: '/v1/documents',
          headers,
          body: sent,
          truncateAt,
          chunkSize,
        });
      },
    );
