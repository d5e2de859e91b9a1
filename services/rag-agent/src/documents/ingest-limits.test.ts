import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMessage, dataPart, type DocumentInfo, type Task } from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import { createHashedEmbedder } from '@fleet/llm';
import { createRagAgent } from '../agent';
import { createAnswerer } from '../answering';
import { buildPdf, buildXlsx, utf8 } from '../ingestion/__fixtures__/build-fixtures';
import { createRetriever } from '../retrieval';
import { createDocumentStore, migrate, type DocumentStore } from '../store';
import { openTestDatabase, type TestDatabase } from '../store/open-test-database';
import { filePart } from '../test-support/boot-rag-agent';
import { createDocumentService, type DocumentServiceLogger } from './create-document-service';

const SLOW = 120_000;

/** A logger that keeps its warnings. */
function recordingLogger(): DocumentServiceLogger & {
  warnings: { object: object; message?: string }[];
} {
  const warnings: { object: object; message?: string }[] = [];
  return {
    warnings,
    info: () => undefined,
    warn: (object, message) => {
      warnings.push({ object, ...(message === undefined ? {} : { message }) });
    },
  };
}

function csvOf(rows: number): Uint8Array {
  const lines = ['order,customer,amount'];
  for (let index = 1; index <= rows; index++) lines.push(`${index},Customer ${index},${index * 3}`);
  return utf8(lines.join('\n'));
}

describe('ingestion limits', () => {
  let database: TestDatabase;
  let store: DocumentStore;
  const embedder = createHashedEmbedder();

  beforeAll(async () => {
    database = await openTestDatabase();
    await migrate(database.database.pool, {
      embeddingModel: embedder.model,
      dimensions: embedder.dimensions,
    });
    store = createDocumentStore({ pool: database.database.pool });
  }, SLOW);

  afterAll(async () => {
    await database?.dispose();
  }, SLOW);

  it(
    'indexes the first 5000 of 200,000 CSV rows and says so in the result, the list and the log',
    async () => {
      const logger = recordingLogger();
      const documents = createDocumentService({ store, embedder, logger });
      const warning = 'only the first 5000 of 200000 rows were indexed (RAG_MAX_ROWS)';
      const [info] = await documents.ingest({
        tenant: 'rows',
        files: [{ filename: 'orders.csv', mediaType: 'text/csv', bytes: csvOf(200_000) }],
      });
      expect(info).toMatchObject({ filename: 'orders.csv', truncated: true, warnings: [warning] });
      expect(logger.warnings).toContainEqual({
        object: expect.objectContaining({
          tenant: 'rows',
          filename: 'orders.csv',
          warnings: [warning],
        }),
        message: 'document truncated',
      });
      const [listed] = await documents.list('rows');
      expect(listed).toMatchObject({ id: info?.id, truncated: true, warnings: [warning] });

      // A file within the limits says nothing of the kind.
      const [small] = await documents.ingest({
        tenant: 'rows',
        files: [{ filename: 'few.csv', bytes: csvOf(20) }],
      });
      expect(small).not.toHaveProperty('truncated');
      expect(small).not.toHaveProperty('warnings');
    },
    SLOW,
  );

  it('tells the A2A caller, in the text and the data part', async () => {
    const execute = createRagAgent({
      documents: createDocumentService({ store, embedder, limits: { maxRows: 10 } }),
      retriever: createRetriever({ store, embedder }),
      answerer: createAnswerer(),
    });
    const events: AgentEvent[] = [];
    for await (const event of execute({
      taskId: 't1',
      contextId: 'c1',
      message: createMessage({
        parts: [
          dataPart({ documents: { op: 'ingest', tenant: 'agent' } }),
          filePart({ filename: 'orders.csv', bytes: csvOf(30) }),
        ],
      }),
      task: {} as Task,
      isContinuation: false,
      signal: new AbortController().signal,
      claimOnce: () => Promise.resolve(true),
    })) {
      events.push(event);
    }
    const artifact = events.find((event) => event.type === 'artifact');
    const parts = artifact?.type === 'artifact' ? artifact.artifact.parts : [];
    const warning = 'only the first 10 of 30 rows were indexed (RAG_MAX_ROWS)';
    expect(parts[0]).toMatchObject({ text: expect.stringContaining(warning) });
    const data = parts[1] as { data: { documents: DocumentInfo[] } };
    expect(data.data.documents[0]).toMatchObject({ truncated: true, warnings: [warning] });
    expect(events[events.length - 1]).toMatchObject({ state: 'TASK_STATE_COMPLETED' });
  });

  it('applies the row, page, character and chunk limits as configured', async () => {
    const ingest = async (
      limits: Parameters<typeof createDocumentService>[0]['limits'],
      filename: string,
      bytes: Uint8Array,
    ): Promise<DocumentInfo> => {
      const documents = createDocumentService({ store, embedder, limits });
      const [info] = await documents.ingest({ tenant: 'limits', files: [{ filename, bytes }] });
      if (!info) throw new Error('nothing ingested');
      return info;
    };
    const rows: (string | number)[][] = [['Order', 'Customer']];
    for (let index = 1; index <= 20; index++) rows.push([index, `Customer ${index}`]);
    const sheet = await ingest(
      { maxRows: 10 },
      'orders.xlsx',
      await buildXlsx([{ name: 'Orders', rows }]),
    );
    expect(sheet.warnings).toEqual([
      'only the first 10 of 20 rows of sheet "Orders" were indexed (RAG_MAX_ROWS)',
    ]);

    const pdf = buildPdf([['First page text.'], ['Second page text.'], ['Third page text.']]);
    const pages = await ingest({ maxPdfPages: 2 }, 'three.pdf', pdf);
    expect(pages).toMatchObject({
      truncated: true,
      warnings: ['only the first 2 of 3 pages were indexed (RAG_MAX_PDF_PAGES)'],
    });

    const text = Array.from({ length: 100 }, (_, index) => `Sentence number ${index} is here.`);
    const characters = await ingest({ maxTextChars: 1000 }, 'long.txt', utf8(text.join('\n\n')));
    expect(characters.warnings).toEqual([
      `only the first 1000 of ${text.join('\n\n').length} characters of text were indexed (RAG_MAX_TEXT_CHARS)`,
    ]);

    const markdown = Array.from(
      { length: 12 },
      (_, index) => `## Part ${index}\n\n${`Part ${index} says something at length. `.repeat(60)}`,
    ).join('\n\n');
    const unlimited = await ingest({}, 'parts.md', utf8(markdown));
    const chunks = await ingest({ maxChunks: 3 }, 'parts-again.md', utf8(`${markdown}\n`));
    expect(unlimited.chunks).toBeGreaterThan(3);
    expect(chunks).toMatchObject({
      chunks: 3,
      truncated: true,
      warnings: [`only the first 3 of ${unlimited.chunks} chunks were indexed (RAG_MAX_CHUNKS)`],
    });
  });
});
