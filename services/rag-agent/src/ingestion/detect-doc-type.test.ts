import { describe, expect, it } from '@jest/globals';
import { FleetError } from '@fleet/errors';
import { buildDocx, buildPdf, buildXlsx, utf8 } from './__fixtures__/build-fixtures';
import { detectDocType } from './detect-doc-type';
import { UnsupportedDocumentError } from './unsupported-document-error';

function rejection(run: () => unknown): UnsupportedDocumentError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UnsupportedDocumentError);
    return error as UnsupportedDocumentError;
  }
  throw new Error('expected detectDocType to throw');
}

describe('detectDocType', () => {
  it('detects every supported type from its extension when the content agrees', async () => {
    const pdf = buildPdf([['Hello']]);
    const docx = await buildDocx([{ paragraph: 'Hello' }]);
    const xlsx = await buildXlsx([{ name: 'Sheet1', rows: [['a']] }]);
    expect(detectDocType({ filename: 'report.pdf', bytes: pdf })).toBe('pdf');
    expect(detectDocType({ filename: 'REPORT.PDF', bytes: pdf })).toBe('pdf');
    expect(detectDocType({ filename: 'handbook.docx', bytes: docx })).toBe('docx');
    expect(detectDocType({ filename: 'figures.xlsx', bytes: xlsx })).toBe('xlsx');
    expect(detectDocType({ filename: 'data.csv', bytes: utf8('a,b\n1,2\n') })).toBe('csv');
    expect(detectDocType({ filename: 'notes.txt', bytes: utf8('hello') })).toBe('txt');
    expect(detectDocType({ filename: 'README.md', bytes: utf8('# Hi') })).toBe('md');
    expect(detectDocType({ filename: 'notes.markdown', bytes: utf8('# Hi') })).toBe('md');
    expect(detectDocType({ filename: 'page.html', bytes: utf8('<p>hi</p>') })).toBe('html');
    expect(detectDocType({ filename: 'dir/page.htm', bytes: utf8('<p>hi</p>') })).toBe('html');
  });

  it('uses the media type only when the name has no extension', () => {
    expect(
      detectDocType({ filename: 'upload', mediaType: 'application/pdf', bytes: buildPdf([['x']]) }),
    ).toBe('pdf');
    expect(
      detectDocType({
        filename: 'upload',
        mediaType: 'text/markdown; charset=utf-8',
        bytes: utf8('# x'),
      }),
    ).toBe('md');
    expect(
      detectDocType({ filename: 'notes.md', mediaType: 'text/plain', bytes: utf8('# x') }),
    ).toBe('md');
  });

  it('rejects an unsupported extension with a 415 naming the file and the supported types', () => {
    const error = rejection(() => detectDocType({ filename: 'photo.png', bytes: utf8('x') }));
    expect(FleetError.isInstance(error)).toBe(true);
    expect(error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(error.status).toBe(415);
    expect(error.message).toContain('"photo.png"');
    expect(error.message).toContain('Supported types: PDF, DOCX, XLSX, CSV, TXT, MD, HTML.');
    expect(error.details).toMatchObject({ filename: 'photo.png' });
  });

  it('rejects a file without an extension or a known media type', () => {
    const error = rejection(() =>
      detectDocType({
        filename: 'upload',
        mediaType: 'application/octet-stream',
        bytes: utf8('x'),
      }),
    );
    expect(error.message).toContain('it has no file extension');
  });

  it('says what to do with an old Word file', () => {
    const error = rejection(() => detectDocType({ filename: 'memo.doc', bytes: utf8('x') }));
    expect(error.message).toContain('save it as .docx');
  });

  it('rejects a .pdf that holds plain text', () => {
    const error = rejection(() =>
      detectDocType({ filename: 'notes.pdf', bytes: utf8('Just some notes, not a PDF.') }),
    );
    expect(error.message).toBe(
      'Cannot index "notes.pdf": its name says a PDF but the content is plain text. ' +
        'Supported types: PDF, DOCX, XLSX, CSV, TXT, MD, HTML.',
    );
  });

  it('rejects a .docx that is really a workbook, and a .xlsx that is really a Word document', async () => {
    const xlsx = await buildXlsx([{ name: 'Sheet1', rows: [['a']] }]);
    const docx = await buildDocx([{ paragraph: 'Hello' }]);
    expect(rejection(() => detectDocType({ filename: 'a.docx', bytes: xlsx })).message).toContain(
      'the content is an Excel workbook (.xlsx)',
    );
    expect(rejection(() => detectDocType({ filename: 'a.xlsx', bytes: docx })).message).toContain(
      'the content is a Word document (.docx)',
    );
  });

  it('rejects text-type names holding binary content', () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expect(rejection(() => detectDocType({ filename: 'a.txt', bytes: png })).message).toContain(
      'the content is a PNG image',
    );
    expect(
      rejection(() => detectDocType({ filename: 'a.csv', bytes: buildPdf([['x']]) })).message,
    ).toContain('the content is a PDF');
    expect(
      rejection(() => detectDocType({ filename: 'a.md', bytes: Uint8Array.from([1, 2, 0, 3, 4]) }))
        .message,
    ).toContain('the content is binary data');
  });

  it('accepts a text file that merely mentions a PDF header', () => {
    expect(
      detectDocType({ filename: 'notes.txt', bytes: utf8('Every PDF starts with %PDF-1.7.') }),
    ).toBe('txt');
  });

  it('lets an empty file through, for the parser to report', () => {
    expect(detectDocType({ filename: 'empty.pdf', bytes: new Uint8Array() })).toBe('pdf');
  });
});
