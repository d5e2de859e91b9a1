/**
 * Compressed test documents no library writes: ZIP entries deflated elsewhere (hundreds of
 * megabytes of one byte, built in a stream), central directories that lie about the sizes, and
 * PDFs with a deflated content stream.
 */
import { crc32, createDeflate, createDeflateRaw, deflateRawSync } from 'node:zlib';

/** Deflated content and the true size and CRC-32 of what it inflates to. */
export interface DeflatedContent {
  bytes: Buffer;
  size: number;
  crc: number;
}

/** One entry of {@link buildZip}. */
export interface ZipEntrySpec {
  name: string;
  /** Content to deflate; or `deflated`, already deflated. */
  data?: string | Uint8Array;
  deflated?: DeflatedContent;
  /** Uncompressed size the headers declare instead of the true one. */
  declaredSize?: number;
}

/**
 * Deflates `prefix`, `size` bytes of `fill` and `suffix` in a stream, so that even a
 * gigabyte of content costs the test only its compressed size (about a thousandth).
 */
export async function deflateFill({
  size,
  fill = 0x20,
  prefix = '',
  suffix = '',
  zlibWrapped = false,
}: {
  size: number;
  fill?: number;
  prefix?: string;
  suffix?: string;
  /** The zlib format (a PDF's FlateDecode) instead of raw deflate (a ZIP entry's). */
  zlibWrapped?: boolean;
}): Promise<DeflatedContent> {
  const deflate = zlibWrapped ? createDeflate({ level: 9 }) : createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  const block = Buffer.alloc(1024 * 1024, fill);
  let crc = 0;
  const write = async (chunk: Buffer): Promise<void> => {
    crc = crc32(chunk, crc);
    if (!deflate.write(chunk)) await new Promise((resolve) => deflate.once('drain', resolve));
  };
  await write(Buffer.from(prefix, 'utf8'));
  for (let left = size; left > 0; left -= block.length) {
    await write(left >= block.length ? block : block.subarray(0, left));
  }
  await write(Buffer.from(suffix, 'utf8'));
  deflate.end();
  await ended;
  return {
    bytes: Buffer.concat(out),
    size: Buffer.byteLength(prefix) + size + Buffer.byteLength(suffix),
    crc,
  };
}

function deflated(entry: ZipEntrySpec): DeflatedContent {
  if (entry.deflated) return entry.deflated;
  const data =
    typeof entry.data === 'string'
      ? Buffer.from(entry.data, 'utf8')
      : Buffer.from(entry.data ?? []);
  return { bytes: deflateRawSync(data), size: data.length, crc: crc32(data) };
}

/** A ZIP archive of deflated entries, written by hand (local headers, central directory, end record). */
export function buildZip(entries: readonly ZipEntrySpec[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const content = deflated(entry);
    const name = Buffer.from(entry.name, 'utf8');
    const size = entry.declaredSize ?? content.size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(0, 10); // time and date
    local.writeUInt32LE(content.crc >>> 0, 14);
    local.writeUInt32LE(content.bytes.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(content.crc >>> 0, 16);
    central.writeUInt32LE(content.bytes.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, content.bytes);
    centrals.push(central, name);
    offset += local.length + name.length + content.bytes.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

const CONTENT_TYPES_HEAD =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>';

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

/** The start of a `word/document.xml` whose text follows (in one run). */
export const DOCX_BODY_START = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body><w:p><w:r><w:t xml:space="preserve">`;
/** The end of a `word/document.xml` started with {@link DOCX_BODY_START}. */
export const DOCX_BODY_END = '</w:t></w:r></w:p></w:body></w:document>';

/** The entries of a minimal .docx around the given `word/document.xml` entry. */
export function docxEntries(document: Omit<ZipEntrySpec, 'name'>): ZipEntrySpec[] {
  return [
    {
      name: '[Content_Types].xml',
      data:
        CONTENT_TYPES_HEAD +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      data:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
        '</Relationships>',
    },
    { name: 'word/document.xml', ...document },
  ];
}

const S = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';

/** The start of a worksheet whose one inline-string cell's text follows. */
export const SHEET_START = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet ${S}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>`;
/** The end of a worksheet started with {@link SHEET_START}. */
export const SHEET_END = '</t></is></c></row></sheetData></worksheet>';

/** The entries of a minimal .xlsx of one sheet, around the given `xl/worksheets/sheet1.xml` entry. */
export function xlsxEntries(sheet: Omit<ZipEntrySpec, 'name'>): ZipEntrySpec[] {
  const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
  return [
    {
      name: '[Content_Types].xml',
      data:
        CONTENT_TYPES_HEAD +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      data:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>' +
        '</Relationships>',
    },
    {
      name: 'xl/workbook.xml',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook ${S} ${R}><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>' +
        '</Relationships>',
    },
    { name: 'xl/worksheets/sheet1.xml', ...sheet },
  ];
}

/**
 * A one-page PDF (Helvetica) whose content stream is the given zlib-deflated content, declared
 * `/FlateDecode`, with a correct cross-reference table.
 */
export function buildFlatePdf(content: DeflatedContent): Uint8Array {
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>', 'latin1'),
    Buffer.from('<< /Type /Pages /Kids [4 0 R] /Count 1 >>', 'latin1'),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>', 'latin1'),
    Buffer.from(
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>',
      'latin1',
    ),
    Buffer.concat([
      Buffer.from(`<< /Length ${content.bytes.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
      content.bytes,
      Buffer.from('\nendstream', 'latin1'),
    ]),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(length);
    const part = Buffer.concat([
      Buffer.from(`${index + 1} 0 obj\n`, 'latin1'),
      object,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(part);
    length += part.length;
  });
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(xref, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}
