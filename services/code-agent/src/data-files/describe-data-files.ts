import { createHash } from 'node:crypto';
import { z } from 'zod';
import { formatBytes, SANDBOX_DATA_DIR, type DataFile } from '../sandbox';

/** Characters of a CSV file's header line shown to the model. */
const MAX_HEADER_LENGTH = 500;

/**
 * A data file as the approval shows it and the proposal keeps it: its name in `/data`, media
 * type, size and SHA-256, so the run can check it is given exactly the files that were approved.
 */
export const dataFileSummarySchema = z.object({
  name: z.string().min(1),
  mediaType: z.string(),
  bytes: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type DataFileSummary = z.infer<typeof dataFileSummarySchema>;

/**
 * The summaries of the step's data files, in order.
 *
 * @example
 * summarizeDataFiles(files); // [{ name: 'sales.csv', mediaType: 'text/csv', bytes: 120, sha256: '…' }]
 */
export function summarizeDataFiles(files: readonly DataFile[]): DataFileSummary[] {
  return files.map(({ name, mediaType, bytes }) => ({
    name,
    mediaType,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  }));
}

/** Whether two lists name the same files with the same contents, in the same order. */
export function sameDataFiles(
  left: readonly DataFileSummary[],
  right: readonly DataFileSummary[],
): boolean {
  return (
    left.length === right.length &&
    left.every(
      (file, index) => file.name === right[index]?.name && file.sha256 === right[index]?.sha256,
    )
  );
}

/** Whether a file is comma- or tab-separated text, by its media type or name. */
function isDelimited({ name, mediaType }: Pick<DataFile, 'name' | 'mediaType'>): boolean {
  return (
    mediaType === 'text/csv' ||
    mediaType === 'text/tab-separated-values' ||
    /\.(csv|tsv)$/i.test(name)
  );
}

/** The first line of a delimited file (without a byte-order mark), bounded. */
export function headerLine(bytes: Buffer): string {
  const start = bytes
    .subarray(0, MAX_HEADER_LENGTH * 4)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  const line = start.split(/\r?\n/)[0] ?? '';
  return line.length > MAX_HEADER_LENGTH ? `${line.slice(0, MAX_HEADER_LENGTH)}…` : line;
}

/**
 * One line per data file for the model and the approval text: its path in `/data`, media type
 * and size, and for a CSV or TSV file its header line.
 *
 * @example
 * describeDataFiles(files); // '- /data/sales.csv (text/csv, 1 KiB); header: month,amount'
 */
export function describeDataFiles(files: readonly DataFile[]): string {
  return files
    .map((file) => {
      const header = isDelimited(file) ? `; header: ${headerLine(file.bytes)}` : '';
      return `- ${SANDBOX_DATA_DIR}/${file.name} (${file.mediaType}, ${formatBytes(file.bytes.length)})${header}`;
    })
    .join('\n');
}
