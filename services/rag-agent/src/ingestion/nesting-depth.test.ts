import { describe, expect, it } from '@jest/globals';
import { FleetError } from '@fleet/errors';
import { buildZip, docxEntries } from './__fixtures__/build-compressed';
import { utf8 } from './__fixtures__/build-fixtures';
import { parseDocument, type ParseDocumentInput } from './parse-document';

async function depthFailure(
  input: ParseDocumentInput,
): Promise<{ error: FleetError; elapsedMs: number }> {
  const started = Date.now();
  const error = await parseDocument(input).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  const elapsedMs = Date.now() - started;
  expect(FleetError.isInstance(error)).toBe(true);
  return { error: error as FleetError, elapsedMs };
}

function expectDepthRefusal(error: FleetError, filename: string): void {
  expect(error.code).toBe('VALIDATION_FAILED');
  expect(error.details).toMatchObject({ filename, limit: 'RAG_MAX_NESTING_DEPTH', max: 100 });
  expect(error.message).toContain('RAG_MAX_NESTING_DEPTH');
}

describe('nesting depth', () => {
  it('refuses HTML nested 50,000 elements deep at once, and reads 60 levels', async () => {
    const deep = `<html><body>${'<div>'.repeat(50_000)}hello${'</div>'.repeat(50_000)}</body></html>`;
    const { error, elapsedMs } = await depthFailure({ filename: 'deep.html', bytes: utf8(deep) });
    expectDepthRefusal(error, 'deep.html');
    // Before the bound, parse5 and the walker spent seconds on it and then overflowed the stack.
    expect(elapsedMs).toBeLessThan(2_000);
    const fine = `<html><body>${'<div><section>'.repeat(30)}<p>Deep but fine.</p>${'</section></div>'.repeat(30)}</body></html>`;
    const doc = await parseDocument({ filename: 'fine.html', bytes: utf8(fine) });
    expect(doc.sections[0]?.blocks).toEqual([{ kind: 'paragraph', text: 'Deep but fine.' }]);
  });

  it('refuses Markdown emphasis and lists nested thousands deep', async () => {
    // Each `*a ` opens an emphasis the matching ` a*` closes: marked took seconds, then overflowed.
    const emphasis = `${'*a '.repeat(5_000)}x${' a*'.repeat(5_000)}\n`;
    const first = await depthFailure({ filename: 'emphasis.md', bytes: utf8(emphasis) });
    expectDepthRefusal(first.error, 'emphasis.md');
    expect(first.elapsedMs).toBeLessThan(2_000);
    const lists = Array.from({ length: 500 }, (_, level) => `${'  '.repeat(level)}- item ${level}`);
    const second = await depthFailure({ filename: 'lists.md', bytes: utf8(lists.join('\n')) });
    expectDepthRefusal(second.error, 'lists.md');
    const quotes = await depthFailure({
      filename: 'quotes.md',
      bytes: utf8(`${'>'.repeat(5_000)} hi\n`),
    });
    expectDepthRefusal(quotes.error, 'quotes.md');
    // Ordinary nesting, code indentation inside a fence, and a rule of asterisks still read.
    const fine = [
      '# Notes',
      '',
      '- one',
      '  - two',
      '    - three **bold** and *em*',
      '',
      '```',
      `${' '.repeat(400)}deeply indented code`,
      '```',
      '',
      '*'.repeat(300),
      '',
      'The end.',
    ].join('\n');
    const doc = await parseDocument({ filename: 'fine.md', bytes: utf8(fine) });
    expect(doc.title).toBe('Notes');
  });

  it('refuses a DOCX whose XML nests 10,000 elements deep, before mammoth reads it', async () => {
    const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
    const document =
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>` +
      '<w:sdt><w:sdtContent>'.repeat(5_000) +
      '<w:p><w:r><w:t>deep</w:t></w:r></w:p>' +
      '</w:sdtContent></w:sdt>'.repeat(5_000) +
      '</w:body></w:document>';
    const bytes = buildZip(docxEntries({ data: document }));
    const { error, elapsedMs } = await depthFailure({ filename: 'deep.docx', bytes });
    expectDepthRefusal(error, 'deep.docx');
    expect(error.details).toMatchObject({ entry: 'word/document.xml' });
    expect(elapsedMs).toBeLessThan(2_000);
  });
});
