/**
 * Builders for real test documents, generated in the tests rather than checked in: a PDF written
 * object by object, a DOCX zipped from WordprocessingML, an XLSX written by exceljs.
 */
import ExcelJS from 'exceljs';
import JSZip from 'jszip';

/** A line of PDF text: a string in 12 pt, or with its own size and the gap below it. */
export type PdfLine = string | { text: string; size?: number; gap?: number };

/** A PDF string literal's body in WinAnsiEncoding (where the bullet is 0x95). */
function escapePdfString(text: string): string {
  return text.replace(/[\\()]/g, (character) => `\\${character}`).replace(/•/g, '\x95');
}

/**
 * A valid PDF 1.4 (Helvetica, one text line per entry, 18 pt apart unless `gap` says otherwise),
 * with a correct cross-reference table so pdf.js reads it without repairs.
 */
export function buildPdf(pages: readonly (readonly PdfLine[])[]): Uint8Array {
  const objects: string[] = [];
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  const kids = pages.map((_, index) => `${4 + index * 2} 0 R`).join(' ');
  objects[2] = `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  pages.forEach((lines, index) => {
    let y = 750;
    const operators = lines
      .map((line) => {
        const { text, size = 12, gap = 18 } = typeof line === 'string' ? { text: line } : line;
        const operator = `BT /F1 ${size} Tf 72 ${y} Td (${escapePdfString(text)}) Tj ET`;
        y -= gap;
        return operator;
      })
      .join('\n');
    objects[4 + index * 2] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] ` +
      `/Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + index * 2} 0 R >>`;
    objects[5 + index * 2] =
      `<< /Length ${Buffer.byteLength(operators, 'latin1')} >>\nstream\n${operators}\nendstream`;
  });
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let number = 1; number < objects.length; number++) {
    offsets[number] = Buffer.byteLength(out, 'latin1');
    out += `${number} 0 obj\n${objects[number] ?? ''}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let number = 1; number < objects.length; number++) {
    out += `${String(offsets[number]).padStart(10, '0')} 00000 n \n`;
  }
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

/**
 * The PDF with a standard security handler (RC4, revision 2) whose user password is not empty: a
 * reader asks for a password. The password hashes are arbitrary, so no password opens it.
 */
export function lockPdf(pdf: Uint8Array): Uint8Array {
  const hash = (length: number): string => '5a'.repeat(length);
  const encrypt = `/Encrypt << /Filter /Standard /V 1 /R 2 /O <${hash(32)}> /U <${hash(32)}> /P -4 >>`;
  const ids = `/ID [<${hash(16)}> <${hash(16)}>]`;
  const text = Buffer.from(pdf).toString('latin1');
  return new Uint8Array(
    Buffer.from(text.replace('trailer\n<< ', `trailer\n<< ${encrypt} ${ids} `), 'latin1'),
  );
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A piece of a Word document body. */
export type DocxPart =
  | { paragraph: string; style?: 'Title' | 'Heading1' | 'Heading2' | 'Heading3' }
  | { bullet: string }
  | { table: string[][] };

function partXml(part: DocxPart): string {
  if ('paragraph' in part) {
    const style = part.style ? `<w:pPr><w:pStyle w:val="${part.style}"/></w:pPr>` : '';
    return `<w:p>${style}<w:r><w:t xml:space="preserve">${escapeXml(part.paragraph)}</w:t></w:r></w:p>`;
  }
  if ('bullet' in part) {
    return (
      '<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr>' +
      `<w:r><w:t xml:space="preserve">${escapeXml(part.bullet)}</w:t></w:r></w:p>`
    );
  }
  const rows = part.table
    .map(
      (row) =>
        `<w:tr>${row.map((cell) => `<w:tc><w:p><w:r><w:t>${escapeXml(cell)}</w:t></w:r></w:p></w:tc>`).join('')}</w:tr>`,
    )
    .join('');
  return `<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/></w:tblPr>${rows}</w:tbl>`;
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

function styleXml(id: string, name: string): string {
  return `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/></w:style>`;
}

/** A real .docx: styles (Title, Heading 1–3, List Paragraph), a bullet numbering, the body. */
export async function buildDocx(parts: readonly DocxPart[]): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
      '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>' +
      '<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>' +
      '</Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
      '</Relationships>',
  );
  zip.file(
    'word/_rels/document.xml.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>' +
      '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>' +
      '</Relationships>',
  );
  zip.file(
    'word/styles.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles ${W}>` +
      styleXml('Title', 'Title') +
      styleXml('Heading1', 'heading 1') +
      styleXml('Heading2', 'heading 2') +
      styleXml('Heading3', 'heading 3') +
      styleXml('ListParagraph', 'List Paragraph') +
      '</w:styles>',
  );
  zip.file(
    'word/numbering.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering ${W}>` +
      '<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/></w:lvl></w:abstractNum>' +
      '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>' +
      '</w:numbering>',
  );
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>` +
      parts.map(partXml).join('') +
      '</w:body></w:document>',
  );
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
}

/** A real .xlsx written by exceljs: one sheet per entry, rows as given (numbers and dates kept). */
export async function buildXlsx(
  sheets: readonly {
    name: string;
    rows: readonly (readonly (string | number | Date | null)[])[];
  }[],
): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  for (const { name, rows } of sheets) {
    const sheet = workbook.addWorksheet(name);
    for (const row of rows) sheet.addRow([...row]);
  }
  const buffer = await workbook.xlsx.writeBuffer();
  return new Uint8Array(buffer);
}

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
