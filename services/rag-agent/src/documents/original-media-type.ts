import { isUtf8 } from 'node:buffer';
import type { StoredDocType } from '../store';

/** The registered media type of each document type the agent reads. */
export const DOC_TYPE_MEDIA_TYPES: Readonly<Record<StoredDocType, string>> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv',
  txt: 'text/plain',
  md: 'text/markdown',
  html: 'text/html',
};

/**
 * The media type a document's original is kept and served with: the registered type of the type
 * the agent detected (not what the uploader claimed, which browsers label loosely), with the
 * charset for text when the bytes tell it: `utf-16` after a byte-order mark, `utf-8` when they
 * are valid UTF-8; none otherwise (an 8-bit legacy file's code page is a guess).
 *
 * @example
 * originalMediaType('csv', new TextEncoder().encode('a,b\n1,2\n')); // 'text/csv; charset=utf-8'
 */
export function originalMediaType(docType: StoredDocType, bytes: Uint8Array): string {
  const type = DOC_TYPE_MEDIA_TYPES[docType];
  if (!type.startsWith('text/')) return type;
  const [first, second] = bytes;
  if ((first === 0xff && second === 0xfe) || (first === 0xfe && second === 0xff)) {
    return `${type}; charset=utf-16`;
  }
  return isUtf8(bytes) ? `${type}; charset=utf-8` : type;
}
