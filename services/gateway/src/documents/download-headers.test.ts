import { describe, expect, it } from '@jest/globals';
import { downloadHeaders } from './download-headers';

describe('downloadHeaders', () => {
  const typeOf = (mediaType: string | undefined) =>
    downloadHeaders({ mediaType, filename: 'file' }).headers['Content-Type'];

  it('passes on a plain media type and its charset, shown inline', () => {
    const { attachment, headers } = downloadHeaders({
      mediaType: 'application/pdf',
      filename: 'sla.pdf',
    });
    expect(attachment).toBe(false);
    expect(headers).toEqual({
      'Content-Type': 'application/pdf',
      'Content-Disposition': 'inline; filename="sla.pdf"',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, no-store',
    });
    expect(typeOf('Text/CSV; Charset="UTF-8"')).toBe('text/csv; charset=utf-8');
    expect(typeOf('text/markdown')).toBe('text/markdown');
  });

  it('serves active content as an application/octet-stream attachment', () => {
    for (const mediaType of [
      'text/html; charset=utf-8',
      'application/xhtml+xml',
      'image/svg+xml',
      'text/xml',
      'application/xml',
      'application/rss+xml',
      'text/javascript',
      'application/ecmascript',
      'text/css',
      'multipart/x-mixed-replace; boundary=x',
    ]) {
      const { attachment, headers } = downloadHeaders({ mediaType, filename: 'page.html' });
      expect({ mediaType, attachment, type: headers['Content-Type'] }).toEqual({
        mediaType,
        attachment: true,
        type: 'application/octet-stream',
      });
      expect(headers['Content-Disposition']).toBe('attachment; filename="page.html"');
    }
  });

  it('serves a missing or malformed media type as an attachment', () => {
    for (const mediaType of [undefined, '', 'pdf', 'text/plain\r\nX-Evil: 1', 'a/b; q=1']) {
      expect(downloadHeaders({ mediaType, filename: 'x' }).attachment).toBe(true);
      expect(typeOf(mediaType)).toBe('application/octet-stream');
    }
  });
});
