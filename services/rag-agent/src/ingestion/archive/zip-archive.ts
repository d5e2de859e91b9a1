import { crc32 } from 'node:zlib';
import { DocumentLimitError } from '../document-limit-error';
import { DocumentParseError } from '../document-parse-error';
import { LIMIT_NAMES, RATIO_GRACE_BYTES, type IngestLimits } from '../limits';
import { nestingTooDeep, xmlNestsDeeperThan } from '../nesting-depth';
import { inflateBounded } from './inflate-bounded';

/**
 * An archive that is not a readable ZIP: cut off, damaged, encrypted, or compressed in a way the
 * agent does not read. The format parsers say this in their own words ("not a valid Word
 * document").
 */
export class DamagedArchiveError extends DocumentParseError {}

/** One entry of the central directory. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  /** The uncompressed size the directory declares; reading enforces it. */
  size: number;
  localHeaderOffset: number;
}

const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_END_LOCATOR = 0x07064b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const MAX_U16 = 0xffff;
const MAX_U32 = 0xffffffff;

const MiB = 1024 * 1024;

function formatSize(bytes: number): string {
  return bytes >= MiB ? `${Math.round((bytes / MiB) * 10) / 10} MiB` : `${bytes} bytes`;
}

/** Entries whose content is XML, checked for depth as they are read. */
function isXml(name: string): boolean {
  return /\.(xml|rels|vml)$/i.test(name);
}

/**
 * A ZIP archive (a DOCX or XLSX) read under the ingestion limits. {@link ZipArchive.open} reads
 * only the central directory and refuses, before inflating anything, an archive that declares
 * more entries than `maxArchiveEntries`, an entry larger than `maxEntryBytes` or compressed more
 * than `maxCompressionRatio` to 1 (past 1 MiB), or more than `maxUnpackedBytes` in all.
 * {@link ZipArchive.read} inflates one entry in a stream and stops the moment it outgrows the size
 * the directory declared, so a directory that lies buys nothing; XML entries are checked for
 * nesting depth.
 */
export class ZipArchive {
  private readonly cache = new Map<string, Buffer>();
  private unpacked = 0;

  private readonly bytes: Buffer;
  /** The file entries by name (the first of a repeated name). */
  readonly entries: ReadonlyMap<string, ZipEntry>;
  private readonly filename: string;
  private readonly limits: IngestLimits;

  private constructor(options: {
    bytes: Buffer;
    entries: ReadonlyMap<string, ZipEntry>;
    filename: string;
    limits: IngestLimits;
  }) {
    this.bytes = options.bytes;
    this.entries = options.entries;
    this.filename = options.filename;
    this.limits = options.limits;
  }

  /**
   * Reads the central directory and checks it against the limits.
   *
   * @throws {@link DocumentLimitError} (413) for an archive over a limit;
   *   {@link DocumentParseError} (400) for one that is not a readable ZIP.
   */
  static open(
    data: Uint8Array,
    { filename, limits }: { filename: string; limits: IngestLimits },
  ): ZipArchive {
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const directory = findDirectory(bytes, filename);
    if (directory.count > limits.maxArchiveEntries) {
      throw new DocumentLimitError(
        `Cannot index "${filename}": it holds ${directory.count} entries, more than the ${limits.maxArchiveEntries} the RAG agent unpacks (${LIMIT_NAMES.maxArchiveEntries}).`,
        { filename, limit: 'maxArchiveEntries', max: limits.maxArchiveEntries },
      );
    }
    const entries = readDirectory(bytes, directory);
    let total = 0;
    const byName = new Map<string, ZipEntry>();
    for (const entry of entries) {
      checkEntry(entry, { filename, limits });
      total += entry.size;
      if (total > limits.maxUnpackedBytes) {
        throw new DocumentLimitError(
          `Cannot index "${filename}": it unpacks to more than ${formatSize(limits.maxUnpackedBytes)} (${LIMIT_NAMES.maxUnpackedBytes}).`,
          { filename, limit: 'maxUnpackedBytes', max: limits.maxUnpackedBytes },
        );
      }
      if (!byName.has(entry.name)) byName.set(entry.name, entry);
    }
    return new ZipArchive({ bytes, entries: byName, filename, limits });
  }

  /** Whether the archive has this entry (a file, not a folder). */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  /**
   * The entry's content, inflated within the limits (once: later reads come from a cache).
   *
   * @throws {@link DocumentParseError} when the entry is missing, damaged, larger than its
   *   directory says, or XML nested deeper than `maxNestingDepth`.
   */
  async read(name: string): Promise<Buffer> {
    const cached = this.cache.get(name);
    if (cached) return cached;
    const entry = this.entries.get(name);
    if (entry === undefined) throw this.damaged(`it has no entry ${name}`);
    const data = this.entryData(entry);
    let content: Buffer;
    if (entry.method === 0) {
      content = data;
    } else {
      const inflated = await inflateBounded(data, { maxBytes: entry.size });
      if (inflated.exceeded) {
        throw new DocumentParseError(
          this.filename,
          `Cannot index "${this.filename}": its entry ${name} unpacks to more than the ${entry.size} bytes its directory declares (a damaged file or a zip bomb).`,
          { details: { entry: name, declaredBytes: entry.size } },
        );
      }
      if (inflated.error) throw this.damaged(`its entry ${name} is damaged`, inflated.error);
      content = inflated.bytes;
    }
    if (content.length !== entry.size || crc32(content) >>> 0 !== entry.crc) {
      throw this.damaged(`its entry ${name} does not match its checksum`);
    }
    this.unpacked += content.length;
    if (this.unpacked > this.limits.maxUnpackedBytes) {
      // Cannot happen with honest sizes (open() summed them); kept as the last line of defence.
      throw new DocumentLimitError(
        `Cannot index "${this.filename}": it unpacks to more than ${formatSize(this.limits.maxUnpackedBytes)} (${LIMIT_NAMES.maxUnpackedBytes}).`,
        { filename: this.filename, limit: 'maxUnpackedBytes', max: this.limits.maxUnpackedBytes },
      );
    }
    if (isXml(name) && xmlNestsDeeperThan(content, this.limits.maxNestingDepth)) {
      throw nestingTooDeep(this.filename, this.limits.maxNestingDepth, name);
    }
    this.cache.set(name, content);
    return content;
  }

  private entryData(entry: ZipEntry): Buffer {
    const offset = entry.localHeaderOffset;
    if (offset + 30 > this.bytes.length || this.bytes.readUInt32LE(offset) !== LOCAL_HEADER) {
      throw this.damaged(`the header of its entry ${entry.name} is missing`);
    }
    const start =
      offset + 30 + this.bytes.readUInt16LE(offset + 26) + this.bytes.readUInt16LE(offset + 28);
    const end = start + entry.compressedSize;
    if (end > this.bytes.length) throw this.damaged(`its entry ${entry.name} is cut off`);
    return this.bytes.subarray(start, end);
  }

  private damaged(reason: string, cause?: unknown): DamagedArchiveError {
    return new DamagedArchiveError(
      this.filename,
      `Cannot read "${this.filename}": ${reason} (the file may be damaged or truncated).`,
      { ...(cause === undefined ? {} : { cause }), details: { reason } },
    );
  }
}

function checkEntry(
  entry: ZipEntry,
  { filename, limits }: { filename: string; limits: IngestLimits },
): void {
  const { name } = entry;
  if ((entry.flags & 0x1) !== 0) {
    throw new DamagedArchiveError(
      filename,
      `Cannot read "${filename}": it is password-protected.`,
      { details: { reason: 'encrypted', entry: name } },
    );
  }
  if (entry.method !== 0 && entry.method !== 8) {
    throw new DamagedArchiveError(
      filename,
      `Cannot read "${filename}": its entry ${name} uses compression method ${entry.method}, which the RAG agent does not read.`,
      { details: { reason: 'compression method', entry: name } },
    );
  }
  if (entry.method === 0 && entry.size !== entry.compressedSize) {
    throw new DamagedArchiveError(
      filename,
      `Cannot read "${filename}": its stored entry ${name} declares two sizes (the file may be damaged).`,
      { details: { reason: 'sizes', entry: name } },
    );
  }
  const ratio = entry.size / Math.max(entry.compressedSize, 1);
  if (entry.size > RATIO_GRACE_BYTES && ratio > limits.maxCompressionRatio) {
    throw new DocumentLimitError(
      `Cannot index "${filename}": its entry ${name} is compressed ${Math.round(ratio)} to 1 (${formatSize(entry.compressedSize)} unpacking to ${formatSize(entry.size)}), more than the ${limits.maxCompressionRatio} to 1 the RAG agent accepts (${LIMIT_NAMES.maxCompressionRatio}); zip bombs are built that way.`,
      { filename, limit: 'maxCompressionRatio', max: limits.maxCompressionRatio, entry: name },
    );
  }
  if (entry.size > limits.maxEntryBytes) {
    throw new DocumentLimitError(
      `Cannot index "${filename}": its entry ${name} unpacks to ${formatSize(entry.size)}, more than the ${formatSize(limits.maxEntryBytes)} the RAG agent unpacks (${LIMIT_NAMES.maxEntryBytes}).`,
      { filename, limit: 'maxEntryBytes', max: limits.maxEntryBytes, entry: name },
    );
  }
}

/** Where the central directory is and how many entries it has, from the end records. */
function findDirectory(
  bytes: Buffer,
  filename: string,
): { offset: number; size: number; count: number } {
  const damaged = (reason: string): DamagedArchiveError =>
    new DamagedArchiveError(
      filename,
      `Cannot read "${filename}": ${reason} (the file may be damaged or truncated).`,
      { details: { reason } },
    );
  // The end record is the last 22 bytes, unless a comment (up to 64 KiB) follows it.
  let end = -1;
  for (let index = bytes.length - 22; index >= Math.max(0, bytes.length - 22 - MAX_U16); index--) {
    if (bytes.readUInt32LE(index) === END_OF_DIRECTORY) {
      end = index;
      break;
    }
  }
  if (end < 0) throw damaged('it is not a complete ZIP archive');
  let count = bytes.readUInt16LE(end + 10);
  let size = bytes.readUInt32LE(end + 12);
  let offset = bytes.readUInt32LE(end + 16);
  if (count === MAX_U16 || size === MAX_U32 || offset === MAX_U32) {
    const locator = end - 20;
    if (locator < 0 || bytes.readUInt32LE(locator) !== ZIP64_END_LOCATOR) {
      throw damaged('its ZIP64 directory is missing');
    }
    const record = Number(bytes.readBigUInt64LE(locator + 8));
    if (record + 56 > bytes.length || bytes.readUInt32LE(record) !== ZIP64_END_OF_DIRECTORY) {
      throw damaged('its ZIP64 directory is missing');
    }
    count = Number(bytes.readBigUInt64LE(record + 32));
    size = Number(bytes.readBigUInt64LE(record + 40));
    offset = Number(bytes.readBigUInt64LE(record + 48));
  }
  if (offset + size > bytes.length) throw damaged('its directory is cut off');
  return { offset, size, count };
}

/** The sizes and offset a ZIP64 extra field holds for the 32-bit fields set to 0xffffffff. */
function zip64Values(
  extra: Buffer,
  wanted: { size: boolean; compressedSize: boolean; offset: boolean },
): { size?: number; compressedSize?: number; offset?: number } {
  for (let index = 0; index + 4 <= extra.length;) {
    const id = extra.readUInt16LE(index);
    const length = extra.readUInt16LE(index + 2);
    if (id === 0x0001) {
      const values: { size?: number; compressedSize?: number; offset?: number } = {};
      let field = index + 4;
      const next = (): number | undefined => {
        if (field + 8 > index + 4 + length) return undefined;
        const value = Number(extra.readBigUInt64LE(field));
        field += 8;
        return value;
      };
      if (wanted.size) values.size = next() ?? Number.MAX_SAFE_INTEGER;
      if (wanted.compressedSize) values.compressedSize = next() ?? 0;
      if (wanted.offset) values.offset = next() ?? Number.MAX_SAFE_INTEGER;
      return values;
    }
    index += 4 + length;
  }
  return {};
}

/** The central directory's file entries (folders left out), in order. */
function readDirectory(
  bytes: Buffer,
  { offset, size, count }: { offset: number; size: number; count: number },
): ZipEntry[] {
  const entries: ZipEntry[] = [];
  let position = offset;
  const end = offset + size;
  // The count comes from the file: read no further than the directory's bytes allow.
  for (let index = 0; index < count && position + 46 <= end; index++) {
    if (bytes.readUInt32LE(position) !== CENTRAL_HEADER) break;
    const nameLength = bytes.readUInt16LE(position + 28);
    const extraLength = bytes.readUInt16LE(position + 30);
    const commentLength = bytes.readUInt16LE(position + 32);
    const flags = bytes.readUInt16LE(position + 8);
    const name = bytes
      .subarray(position + 46, position + 46 + nameLength)
      .toString((flags & 0x800) !== 0 ? 'utf8' : 'latin1')
      .replace(/^\/+/, '');
    let compressedSize = bytes.readUInt32LE(position + 20);
    let entrySize = bytes.readUInt32LE(position + 24);
    let localHeaderOffset = bytes.readUInt32LE(position + 42);
    if (compressedSize === MAX_U32 || entrySize === MAX_U32 || localHeaderOffset === MAX_U32) {
      const extraStart = position + 46 + nameLength;
      const values = zip64Values(bytes.subarray(extraStart, extraStart + extraLength), {
        size: entrySize === MAX_U32,
        compressedSize: compressedSize === MAX_U32,
        offset: localHeaderOffset === MAX_U32,
      });
      entrySize = values.size ?? entrySize;
      compressedSize = values.compressedSize ?? compressedSize;
      localHeaderOffset = values.offset ?? localHeaderOffset;
    }
    if (!name.endsWith('/')) {
      entries.push({
        name,
        method: bytes.readUInt16LE(position + 10),
        flags,
        crc: bytes.readUInt32LE(position + 16),
        compressedSize,
        size: entrySize,
        localHeaderOffset,
      });
    }
    position += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
