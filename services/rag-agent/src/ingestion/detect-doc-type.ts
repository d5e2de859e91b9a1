import { decodeText, type DecodedText } from './parsers/decode-text';
import { DOC_TYPES, type DocType } from './types';
import { UnsupportedDocumentError } from './unsupported-document-error';

/** Input to {@link detectDocType}. */
export interface DetectDocTypeInput {
  /** The file's name; its extension names the claimed type. */
  filename: string;
  /** The upload's media type; used only when the name has no known extension. */
  mediaType?: string | undefined;
  /** The file's bytes; they must agree with the claimed type. */
  bytes: Uint8Array;
}

const EXTENSIONS: Readonly<Record<string, DocType>> = {
  pdf: 'pdf',
  docx: 'docx',
  xlsx: 'xlsx',
  csv: 'csv',
  txt: 'txt',
  text: 'txt',
  md: 'md',
  markdown: 'md',
  html: 'html',
  htm: 'html',
};

const MEDIA_TYPES: Readonly<Record<string, DocType>> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/csv': 'csv',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/x-markdown': 'md',
  'text/html': 'html',
};

/** Formats people often try, with what to do instead. */
const LEGACY_HINTS: Readonly<Record<string, string>> = {
  doc: 'old Word (.doc) files are not supported; save it as .docx',
  xls: 'old Excel (.xls) files are not supported; save it as .xlsx',
  ppt: 'PowerPoint files are not supported; export it as PDF',
  pptx: 'PowerPoint files are not supported; export it as PDF',
  rtf: 'RTF files are not supported; save it as .docx or .txt',
  odt: 'OpenDocument files are not supported; save it as .docx or PDF',
  ods: 'OpenDocument files are not supported; save it as .xlsx or CSV',
};

const TYPE_NAMES: Readonly<Record<DocType, string>> = {
  pdf: 'a PDF',
  docx: 'a Word document (.docx)',
  xlsx: 'an Excel workbook (.xlsx)',
  csv: 'CSV text',
  txt: 'plain text',
  md: 'Markdown text',
  html: 'HTML text',
};

/** What the bytes actually are, as far as the first few bytes tell. */
type Content =
  | { kind: 'empty' }
  | { kind: 'pdf' }
  | { kind: 'docx' }
  | { kind: 'xlsx' }
  | { kind: 'text'; decoded: DecodedText }
  | { kind: 'other'; description: string };

/** The detected type, with the decoded text for text formats. */
export interface InspectedDocument {
  docType: DocType;
  /** Decoded text for csv/txt/md/html; `''` for an empty file of any type. */
  text?: string;
}

function supportedTypesText(): string {
  return `Supported types: ${DOC_TYPES.map((type) => type.toUpperCase()).join(', ')}.`;
}

function extensionOf(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? filename;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

function hasBytes(bytes: Uint8Array, prefix: readonly number[], offset = 0): boolean {
  return prefix.every((value, index) => bytes[offset + index] === value);
}

/**
 * Whether a ZIP archive holds an entry of this name. Entry names are stored uncompressed in both
 * the local headers and the central directory, so a byte search finds them without unzipping.
 */
function zipHasEntry(bytes: Uint8Array, name: string): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(name, 0, 'latin1');
}

function sniff(bytes: Uint8Array, claimed: DocType): Content {
  if (bytes.length === 0) return { kind: 'empty' };
  if (hasBytes(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return { kind: 'pdf' };
  // A PDF header may follow a little junk (pdf.js looks in the first 1024 bytes too), but a text
  // file that merely mentions "%PDF-" near its start is still text.
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024));
  if (claimed === 'pdf' && head.includes('%PDF-', 0, 'latin1')) return { kind: 'pdf' };
  if (hasBytes(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    if (zipHasEntry(bytes, 'word/document.xml')) return { kind: 'docx' };
    if (zipHasEntry(bytes, 'xl/workbook.xml')) return { kind: 'xlsx' };
    return { kind: 'other', description: 'a ZIP archive that is neither .docx nor .xlsx' };
  }
  if (hasBytes(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) {
    return {
      kind: 'other',
      description: 'an old-format (.doc/.xls) or password-protected Office file',
    };
  }
  if (hasBytes(bytes, [0x89, 0x50, 0x4e, 0x47]))
    return { kind: 'other', description: 'a PNG image' };
  if (hasBytes(bytes, [0xff, 0xd8, 0xff])) return { kind: 'other', description: 'a JPEG image' };
  if (hasBytes(bytes, [0x47, 0x49, 0x46, 0x38]))
    return { kind: 'other', description: 'a GIF image' };
  if (hasBytes(bytes, [0x1f, 0x8b])) return { kind: 'other', description: 'gzip-compressed data' };
  const decoded = decodeText(bytes);
  return decoded ? { kind: 'text', decoded } : { kind: 'other', description: 'binary data' };
}

function describe(content: Content): string {
  switch (content.kind) {
    case 'empty':
      return 'empty';
    case 'pdf':
    case 'docx':
    case 'xlsx':
      return TYPE_NAMES[content.kind];
    case 'text':
      return 'plain text';
    case 'other':
      return content.description;
  }
}

function claimedType(filename: string, mediaType: string | undefined): DocType {
  const extension = extensionOf(filename);
  const byExtension = EXTENSIONS[extension];
  if (byExtension) return byExtension;
  const hint = LEGACY_HINTS[extension];
  if (hint) {
    throw new UnsupportedDocumentError(
      filename,
      `Cannot index "${filename}": ${hint}. ${supportedTypesText()}`,
    );
  }
  // Browsers label uploads loosely, so the media type only decides when the name cannot.
  const essence = mediaType?.split(';')[0]?.trim().toLowerCase();
  const byMediaType = essence === undefined ? undefined : MEDIA_TYPES[essence];
  if (extension === '' && byMediaType) return byMediaType;
  const what =
    extension === '' ? 'it has no file extension' : `".${extension}" files are not supported`;
  throw new UnsupportedDocumentError(
    filename,
    `Cannot index "${filename}": ${what}. ${supportedTypesText()}`,
  );
}

/**
 * Detects a file's type and, for text formats, decodes it. Used by {@link parseDocument}.
 *
 * @internal
 */
export function inspectDocument({
  filename,
  mediaType,
  bytes,
}: DetectDocTypeInput): InspectedDocument {
  const docType = claimedType(filename, mediaType);
  const content = sniff(bytes, docType);
  if (content.kind === 'empty') return { docType, text: '' };
  const matches =
    docType === 'pdf' || docType === 'docx' || docType === 'xlsx'
      ? content.kind === docType
      : content.kind === 'text';
  if (!matches) {
    throw new UnsupportedDocumentError(
      filename,
      `Cannot index "${filename}": its name says ${TYPE_NAMES[docType]} but the content is ${describe(content)}. ${supportedTypesText()}`,
      { details: { claimedType: docType, content: describe(content) } },
    );
  }
  return content.kind === 'text' ? { docType, text: content.decoded.text } : { docType };
}

/**
 * Detects a document's type from its file name (or, without an extension, its media type) and
 * checks the bytes agree: `%PDF-` for PDF, a ZIP with `word/document.xml` for DOCX or
 * `xl/workbook.xml` for XLSX, text (UTF-8, UTF-16 with BOM, or Windows-1252) for CSV, TXT, MD
 * and HTML. An empty file passes; {@link parseDocument} reports it as having no text.
 *
 * @param input - `filename`, optional `mediaType`, and the file's `bytes`.
 * @returns The document type.
 * @throws {@link UnsupportedDocumentError} for an unknown extension or content of another type.
 *
 * @example
 * detectDocType({ filename: 'report.pdf', bytes }); // 'pdf'
 */
export function detectDocType(input: DetectDocTypeInput): DocType {
  return inspectDocument(input).docType;
}
