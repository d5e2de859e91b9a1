import { describe, expect, it } from '@jest/globals';
import type { Part } from '@fleet/a2a';
import { FleetError } from '@fleet/errors';
import { describeDataFiles, summarizeDataFiles } from './describe-data-files';
import { readDataFiles } from './read-data-files';

const LIMITS = { maxFiles: 4, maxTotalBytes: 1000 };

function filePart(
  filename: string | undefined,
  content: string | Buffer,
  mediaType?: string,
): Part {
  return {
    raw: Buffer.from(content).toString('base64'),
    ...(filename === undefined ? {} : { filename }),
    ...(mediaType === undefined ? {} : { mediaType }),
  };
}

function errorOf(run: () => unknown): FleetError {
  try {
    run();
  } catch (error) {
    if (FleetError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a FleetError');
}

describe('readDataFiles', () => {
  it('reads the raw file parts with clean names and media types, and skips text and data parts', () => {
    const files = readDataFiles(
      [
        { text: 'Chart the sales.' },
        { data: { x: 1 }, mediaType: 'application/json' },
        filePart('../../etc/passwd', 'root:x:0:0'),
        filePart('sales.csv', 'month,amount\n2024-01,5\n'),
        filePart('notes', 'hello', 'text/plain; charset=utf-8'),
        filePart('odd', 'x', 'not a media type'),
      ],
      LIMITS,
    );
    expect(files.map(({ name, mediaType }) => [name, mediaType])).toEqual([
      ['passwd', 'application/octet-stream'],
      ['sales.csv', 'text/csv'],
      ['notes', 'text/plain'],
      ['odd', 'application/octet-stream'],
    ]);
    expect(files[1]?.bytes.toString()).toBe('month,amount\n2024-01,5\n');
  });

  it('refuses more files than allowed, with PAYLOAD_TOO_LARGE', () => {
    const error = errorOf(() =>
      readDataFiles(
        ['a', 'b', 'c', 'd', 'e'].map((name) => filePart(`${name}.txt`, name)),
        LIMITS,
      ),
    );
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.message).toBe(
      'The step was given 5 files; the code agent takes at most 4 files for /data. Nothing was run.',
    );
    expect(error.details).toEqual({ files: 5, maxFiles: 4 });
  });

  it('refuses more bytes than allowed in all, with PAYLOAD_TOO_LARGE', () => {
    const error = errorOf(() =>
      readDataFiles(
        [filePart('a.bin', Buffer.alloc(600)), filePart('b.bin', Buffer.alloc(600))],
        LIMITS,
      ),
    );
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.message).toMatch(
      /hold 1 KiB \(1200 bytes\); the code agent takes at most 1000 bytes in all/,
    );
    // Exactly at the budget is fine.
    expect(readDataFiles([filePart('a.bin', Buffer.alloc(1000))], LIMITS)).toHaveLength(1);
  });

  it('does not fetch a url part and does not take bytes that are not base64', () => {
    const linked = errorOf(() =>
      readDataFiles([{ url: 'http://169.254.169.254/latest', filename: 'meta' }], LIMITS),
    );
    expect(linked.code).toBe('VALIDATION_FAILED');
    expect(linked.message).toMatch(/does not fetch URLs/);
    const garbled = errorOf(() => readDataFiles([{ raw: 'not base64!', filename: 'x' }], LIMITS));
    expect(garbled.code).toBe('VALIDATION_FAILED');
  });

  it('describes the files for the model, with the header line of a CSV file', () => {
    const files = readDataFiles(
      [
        filePart('sales.csv', '\uFEFFmonth,region,amount\r\n2024-01,north,5\r\n'),
        filePart('chart.png', Buffer.alloc(2048), 'image/png'),
      ],
      { maxFiles: 3, maxTotalBytes: 10_000 },
    );
    expect(describeDataFiles(files)).toBe(
      '- /data/sales.csv (text/csv, 41 bytes); header: month,region,amount\n- /data/chart.png (image/png, 2 KiB)',
    );
    expect(summarizeDataFiles(files)[0]).toMatchObject({
      name: 'sales.csv',
      bytes: 41,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });
});
