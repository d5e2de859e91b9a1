import { crc32, deflateRawSync, constants } from 'node:zlib';

/** One file of a zip archive. */
interface ZipEntry {
  name: string;
  /** Raw-deflated bytes. */
  compressed: Buffer;
  crc: number;
  size: number;
}

function entryOf(name: string, data: Buffer): ZipEntry {
  return {
    name,
    compressed: deflateRawSync(data, { level: constants.Z_BEST_COMPRESSION }),
    crc: crc32(data),
    size: data.length,
  };
}

/** `size` zero bytes, deflated (about 1/1000 of the size). */
function zeroEntry(name: string, size: number): ZipEntry {
  return entryOf(name, Buffer.alloc(size));
}

/** A zip (stored as deflate, no zip64) from its entries. */
function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(0, 10);
    local.writeUInt32LE(entry.crc >>> 0, 14);
    local.writeUInt32LE(entry.compressed.length, 18);
    local.writeUInt32LE(entry.size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, entry.compressed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(entry.crc >>> 0, 16);
    central.writeUInt32LE(entry.compressed.length, 20);
    central.writeUInt32LE(entry.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + entry.compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const CONTENT_TYPES = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
);

const cache = new Map<string, Buffer>();

/**
 * A DOCX or XLSX whose main part inflates to `inflatedBytes` (zeros) from a few hundred KiB: a zip
 * bomb. Built once per shape and kept.
 */
export function zipBomb(kind: 'docx' | 'xlsx', inflatedBytes: number): Buffer {
  const key = `${kind}:${inflatedBytes}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const main = kind === 'docx' ? 'word/document.xml' : 'xl/worksheets/sheet1.xml';
  const entries = [
    entryOf('[Content_Types].xml', CONTENT_TYPES),
    ...(kind === 'xlsx'
      ? [
          entryOf(
            'xl/workbook.xml',
            Buffer.from(
              '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets><sheet name="S" sheetId="1"/></sheets></workbook>',
            ),
          ),
        ]
      : []),
    zeroEntry(main, inflatedBytes),
  ];
  const bytes = zip(entries);
  cache.set(key, bytes);
  return bytes;
}
