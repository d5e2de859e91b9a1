import { describe, expect, it } from '@jest/globals';
import { cleanFilename, contentDisposition } from './content-disposition';

describe('cleanFilename', () => {
  it('drops directories, control and format characters, and leading dots', () => {
    expect(cleanFilename('../../etc/pass\r\nwd.txt')).toBe('passwd.txt');
    expect(cleanFilename('C:\\Users\\me\\report.pdf')).toBe('report.pdf');
    // A right-to-left override would show "invoice_fdp.exe" as "invoice_exe.pdf".
    expect(cleanFilename('invoice_\u202Efdp.exe')).toBe('invoice_fdp.exe');
    expect(cleanFilename('..hidden')).toBe('hidden');
    expect(cleanFilename(' \u0000 ')).toBe('document');
    expect(cleanFilename('a/')).toBe('document');
  });

  it('keeps at most 200 characters, counting by code point', () => {
    expect(Array.from(cleanFilename('😀'.repeat(300)))).toHaveLength(200);
  });
});

describe('contentDisposition', () => {
  it('quotes a plain ASCII name and adds nothing else', () => {
    expect(contentDisposition({ type: 'inline', filename: 'report 2026.pdf' })).toBe(
      'inline; filename="report 2026.pdf"',
    );
  });

  it('replaces quotes, backslashes and percent signs in the ASCII name and gives the exact name as filename*', () => {
    expect(contentDisposition({ type: 'attachment', filename: 'say "hi" 100%.txt' })).toBe(
      `attachment; filename="say _hi_ 100_.txt"; filename*=UTF-8''say%20%22hi%22%20100%25.txt`,
    );
  });

  it('encodes non-ASCII names as UTF-8 in filename* (RFC 8187)', () => {
    expect(contentDisposition({ type: 'attachment', filename: 'Grüße – 2026 (final).csv' })).toBe(
      `attachment; filename="Gr__e _ 2026 (final).csv"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%E2%80%93%202026%20%28final%29.csv`,
    );
  });

  it('never lets a filename break the header', () => {
    const header = contentDisposition({ type: 'attachment', filename: 'a\r\nSet-Cookie: x=1.txt' });
    expect(header).toBe('attachment; filename="aSet-Cookie: x=1.txt"');
    expect(header).not.toMatch(/[\r\n]/);
  });
});
