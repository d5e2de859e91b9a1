import { describe, expect, it } from '@jest/globals';
import { FleetError } from '@fleet/errors';
import { buildDocx, buildXlsx } from './__fixtures__/build-fixtures';
import {
  buildFlatePdf,
  buildZip,
  deflateFill,
  DOCX_BODY_END,
  DOCX_BODY_START,
  docxEntries,
  SHEET_END,
  SHEET_START,
  xlsxEntries,
} from './__fixtures__/build-compressed';
import { parseDocument } from './parse-document';

const MiB = 1024 * 1024;
const SLOW = 120_000;

/** Growth of the process's memory while `run` runs: the peak over samples every few ms, and after. */
async function memoryGrowth(
  run: () => Promise<unknown>,
): Promise<{ peakRss: number; peakArrayBuffers: number; error: unknown }> {
  const base = process.memoryUsage();
  let peakRss = 0;
  let peakArrayBuffers = 0;
  const sample = (): void => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss - base.rss);
    peakArrayBuffers = Math.max(peakArrayBuffers, now.arrayBuffers - base.arrayBuffers);
  };
  const timer = setInterval(sample, 2);
  let error: unknown;
  try {
    await run();
  } catch (caught) {
    error = caught;
  } finally {
    clearInterval(timer);
    sample();
  }
  return { peakRss, peakArrayBuffers, error };
}

function fleetError(error: unknown): FleetError {
  expect(FleetError.isInstance(error)).toBe(true);
  return error as FleetError;
}

describe('decompression limits', () => {
  it(
    'refuses a DOCX whose document.xml deflates 1000:1 to 200 MiB, without unpacking it',
    async () => {
      const bomb = buildZip(
        docxEntries({
          deflated: await deflateFill({
            size: 200 * MiB,
            prefix: DOCX_BODY_START,
            suffix: DOCX_BODY_END,
          }),
        }),
      );
      expect(bomb.length).toBeLessThan(MiB);
      const growth = await memoryGrowth(() =>
        parseDocument({ filename: 'bomb.docx', bytes: bomb }),
      );
      const error = fleetError(growth.error);
      expect(error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(error.status).toBe(413);
      expect(error.details).toMatchObject({
        filename: 'bomb.docx',
        limit: 'RAG_MAX_COMPRESSION_RATIO',
        entry: 'word/document.xml',
      });
      expect(error.message).toContain('RAG_MAX_COMPRESSION_RATIO');
      expect(growth.peakRss).toBeLessThan(100 * MiB);
      expect(growth.peakArrayBuffers).toBeLessThan(100 * MiB);
    },
    SLOW,
  );

  it(
    'stops inflating an entry as soon as it outgrows the size its directory declares',
    async () => {
      // The directory says 64 KiB (a ratio of well under 1:1); the entry holds 200 MiB.
      const liar = buildZip(
        docxEntries({
          deflated: await deflateFill({
            size: 200 * MiB,
            prefix: DOCX_BODY_START,
            suffix: DOCX_BODY_END,
          }),
          declaredSize: 64 * 1024,
        }),
      );
      const growth = await memoryGrowth(() =>
        parseDocument({ filename: 'liar.docx', bytes: liar }),
      );
      const error = fleetError(growth.error);
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.details).toMatchObject({ filename: 'liar.docx', entry: 'word/document.xml' });
      expect(error.message).toContain('word/document.xml');
      expect(growth.peakRss).toBeLessThan(100 * MiB);
      expect(growth.peakArrayBuffers).toBeLessThan(100 * MiB);
    },
    SLOW,
  );

  it(
    'refuses an XLSX whose sheet unpacks to 200 MiB, without unpacking it',
    async () => {
      const bomb = buildZip(
        xlsxEntries({
          deflated: await deflateFill({ size: 200 * MiB, prefix: SHEET_START, suffix: SHEET_END }),
        }),
      );
      const growth = await memoryGrowth(() =>
        parseDocument({ filename: 'bomb.xlsx', bytes: bomb }),
      );
      const error = fleetError(growth.error);
      expect(error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(error.details).toMatchObject({
        filename: 'bomb.xlsx',
        entry: 'xl/worksheets/sheet1.xml',
      });
      expect(growth.peakRss).toBeLessThan(100 * MiB);
      expect(growth.peakArrayBuffers).toBeLessThan(100 * MiB);
    },
    SLOW,
  );

  it('enforces the total, per-entry, entry-count and ratio limits as configured', async () => {
    const docx = await buildDocx([
      { paragraph: 'Report', style: 'Title' },
      { paragraph: 'Revenue grew by 12 percent in the third quarter.' },
    ]);
    const failure = async (limits: Parameters<typeof parseDocument>[0]['limits']) =>
      fleetError(
        await parseDocument({ filename: 'report.docx', bytes: docx, limits }).then(
          () => undefined,
          (error: unknown) => error,
        ),
      );
    const cases = [
      [{ maxUnpackedBytes: 1500 }, 'RAG_MAX_UNPACKED_BYTES'],
      [{ maxEntryBytes: 200 }, 'RAG_MAX_UNPACKED_ENTRY_BYTES'],
      [{ maxArchiveEntries: 3 }, 'RAG_MAX_ARCHIVE_ENTRIES'],
    ] as const;
    for (const [limits, name] of cases) {
      const error = await failure(limits);
      expect(error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(error.details).toMatchObject({ filename: 'report.docx', limit: name });
      expect(error.message).toContain(name);
    }
    // Within the limits the document reads as before.
    const doc = await parseDocument({ filename: 'report.docx', bytes: docx });
    expect(doc.title).toBe('Report');
    const xlsx = await buildXlsx([
      {
        name: 'Prices',
        rows: [
          ['Item', 'Price'],
          ['Sensor', 99],
        ],
      },
    ]);
    const sheet = await parseDocument({ filename: 'prices.xlsx', bytes: xlsx });
    expect(sheet.sections[0]?.blocks[0]).toEqual({
      kind: 'table',
      rows: [
        ['Item', 'Price'],
        ['Sensor', '99'],
      ],
    });
  });

  it(
    'refuses a PDF whose content stream inflates 1000:1, before pdf.js reads it',
    async () => {
      const pdf = buildFlatePdf(
        await deflateFill({
          size: 64 * MiB,
          prefix: 'BT /F1 12 Tf 72 700 Td (Hello) Tj ET\n',
          zlibWrapped: true,
        }),
      );
      const error = fleetError(
        await parseDocument({ filename: 'bomb.pdf', bytes: pdf }).then(
          () => undefined,
          (caught: unknown) => caught,
        ),
      );
      expect(error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(error.details).toMatchObject({
        filename: 'bomb.pdf',
        limit: 'RAG_MAX_COMPRESSION_RATIO',
      });
      // The same stream, small, is an ordinary page.
      const small = buildFlatePdf(
        await deflateFill({
          size: 1000,
          prefix: 'BT /F1 12 Tf 72 700 Td (Hello) Tj ET\n',
          zlibWrapped: true,
        }),
      );
      const doc = await parseDocument({ filename: 'small.pdf', bytes: small });
      expect(doc.sections.flatMap((section) => section.blocks)).toEqual([
        { kind: 'paragraph', text: 'Hello', page: 1 },
      ]);
    },
    SLOW,
  );
});
