/**
 * Worksheet XML cut to its first rows, so that exceljs (which builds every row of a sheet in
 * memory) sees no more than the rows that will be indexed, and how many rows there were.
 */
export interface CutSheet {
  /** The worksheet XML, cut after the kept rows (`</sheetData>` and what follows kept). */
  xml: Buffer;
  /** Rows with a value, header included. */
  rows: number;
}

const ROW_OPEN = Buffer.from('<row', 'latin1');
const ROW_CLOSE = Buffer.from('</row>', 'latin1');
const SHEET_DATA_CLOSE = Buffer.from('</sheetData>', 'latin1');
const VALUE_MARKERS = ['<v>', '<v ', '<is>', '<is ', '<f>', '<f '].map((marker) =>
  Buffer.from(marker, 'latin1'),
);

/** Whether `bytes[start, end)` holds a cell value (`<v>`, an inline string, or a formula). */
function hasValue(bytes: Buffer, start: number, end: number): boolean {
  const row = bytes.subarray(start, end);
  return VALUE_MARKERS.some((marker) => row.includes(marker));
}

/**
 * Keeps the first `keepRows` rows that hold a value (and any blank ones between them), drops the
 * rest, and counts them all: a linear scan of `<row>` elements, without parsing the XML. A sheet
 * whose XML does not look like SpreadsheetML's comes back whole, with the rows it could count.
 */
export function cutSheetRows(xml: Buffer, keepRows: number): CutSheet {
  const dataEnd = xml.lastIndexOf(SHEET_DATA_CLOSE);
  if (dataEnd < 0) return { xml, rows: 0 };
  let rows = 0;
  let cutAt: number | undefined;
  let position = 0;
  for (;;) {
    const open = xml.indexOf(ROW_OPEN, position);
    if (open < 0 || open >= dataEnd) break;
    const after = xml[open + ROW_OPEN.length];
    // `<row ` or `<row>`, not `<rowBreaks`.
    if (after !== 0x20 && after !== 0x3e && after !== 0x09 && after !== 0x0a && after !== 0x0d) {
      position = open + ROW_OPEN.length;
      continue;
    }
    const tagEnd = xml.indexOf(0x3e, open);
    if (tagEnd < 0) break;
    let rowEnd: number;
    if (xml[tagEnd - 1] === 0x2f) {
      rowEnd = tagEnd + 1;
    } else {
      const close = xml.indexOf(ROW_CLOSE, tagEnd);
      if (close < 0 || close > dataEnd) break;
      rowEnd = close + ROW_CLOSE.length;
      if (hasValue(xml, tagEnd, close)) {
        rows++;
        if (rows === keepRows) cutAt = rowEnd;
      }
    }
    position = rowEnd;
  }
  if (cutAt === undefined || rows <= keepRows) return { xml, rows };
  return { xml: Buffer.concat([xml.subarray(0, cutAt), xml.subarray(dataEnd)]), rows };
}
