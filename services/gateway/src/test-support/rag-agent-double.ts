import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import {
  dataPart,
  DOCUMENT_METADATA_HEADER,
  documentSearchRequestSchema,
  encodeContentMetadata,
  documentsCommandSchema,
  findData,
  RESULT_ARTIFACT_NAME,
  textPart,
  type DocumentInfo,
  type DocumentsCommand,
} from '@fleet/a2a';
import { A2AClient } from '@fleet/a2a/client';
import {
  buildAgentCard,
  createA2AHandler,
  InMemoryTaskStore,
  type AgentContext,
  type AgentEvent,
} from '@fleet/a2a/server';
import { a2aRouter } from '@fleet/a2a/server/express';
import { errorMiddleware, readJsonBody, requireBearerToken } from '@fleet/http';
import { createDocumentsClient, type DocumentsClient } from '../documents/documents-client';
import {
  NotFoundError,
  toErrorBody,
  UnsupportedMediaTypeError,
  type FleetError,
} from '@fleet/errors';

/** The token the double and its clients share. */
export const RAG_DOUBLE_TOKEN = 'internal-token-rag-0123456789';

/** One file part the double received. */
export interface ReceivedFile {
  filename: string | undefined;
  mediaType: string | undefined;
  bytes: Buffer;
}

/** One documents command the double received. */
export interface RagDoubleCall {
  command: DocumentsCommand;
  files: ReceivedFile[];
  /** How it came: the A2A documents command, or the byte route (`/internal/documents/:id/content`). */
  via: 'a2a' | 'content-route';
}

/** A running RAG agent double. */
export interface RagAgentDouble {
  /** The agent's base URL. */
  url: string;
  /** A client for the gateway, with the token. */
  client: A2AClient;
  /** Every documents command received, in order. */
  calls: RagDoubleCall[];
  /** Every search received over `POST /internal/search`, in order. */
  searches: { tenant: string; query: string; limit: number }[];
  /** Fails the next list or delete with this error (its error body in the status message). */
  failNextWith: FleetError | undefined;
  close(): Promise<void>;
}

/**
 * The gateway's documents client for the double, byte and search routes included (the way
 * `main.ts` builds it for the real agent).
 *
 * @example
 * const gateway = await buildGateway({ overrides: { documents: documentsClientOf(agent) } });
 */
export function documentsClientOf(double: RagAgentDouble): DocumentsClient {
  return createDocumentsClient({
    client: double.client,
    agentUrl: double.url,
    contentUrl: double.url,
    token: RAG_DOUBLE_TOKEN,
  });
}

const DOC_TYPES: Record<string, DocumentInfo['docType']> = {
  pdf: 'pdf',
  docx: 'docx',
  csv: 'csv',
  xlsx: 'xlsx',
  txt: 'txt',
  md: 'md',
  html: 'html',
};

/** A document the double keeps: what it reports, and the bytes it was uploaded with. */
type StoredDocument = DocumentInfo & { hash: string; bytes: Buffer; mediaType: string | undefined };

/** What `list` and `ingest` report of a stored document. */
function info({ hash: _hash, bytes: _bytes, mediaType: _mediaType, ...document }: StoredDocument) {
  return document;
}

/**
 * Starts a small A2A agent (built with `@fleet/a2a/server`) playing the RAG agent's side of the
 * documents contract (`documentsCommandSchema`), with documents kept in memory per tenant:
 *
 * - `ingest`: the file's extension picks the doc type; an unknown extension fails the task with
 *   an `UNSUPPORTED_MEDIA_TYPE` error body, a file starting with `CORRUPT` fails it with text only
 *   (as a parser error would), the same bytes twice answer the stored document with
 *   `duplicate: true`; one chunk per line.
 * - `list`: the tenant's documents, newest first; `delete`: `{ deleted }`.
 * - `get` (by id): `{ document }` and a file part with the bytes and the media type they were
 *   uploaded with; an unknown id (or another tenant's) fails with a `NOT_FOUND` error body, and so
 *   does a file named `old…`, which plays a document stored before originals were kept
 *   (`original: false`).
 * - `GET /internal/documents/:id/content?tenant=` (behind the token): the same bytes and failures
 *   as `get`, the bytes as the body and `{ document, filename, mediaType }` in `X-Fleet-Document`.
 * - `POST /internal/search?tenant=` (behind the token): each line of the tenant's documents is a
 *   chunk, scored by how many of the query's words (3+ letters) it holds; the `limit` best with a
 *   score, best first, in `documentSearchResultSchema`'s shape.
 *
 * The gateway's side is what is under test; the real agent runs in e2e/.
 */
export async function startRagAgentDouble(): Promise<RagAgentDouble> {
  const calls: RagDoubleCall[] = [];
  const stored = new Map<string, StoredDocument[]>();
  let closeServer: () => Promise<void> = () => Promise.resolve();
  const double: RagAgentDouble = {
    url: '',
    client: undefined as unknown as A2AClient,
    calls,
    searches: [],
    failNextWith: undefined,
    close: () => closeServer(),
  };

  async function* execute(context: AgentContext): AsyncGenerator<AgentEvent> {
    await Promise.resolve();
    const input = findData(context.message.parts, documentsCommandSchema);
    if (input === undefined) {
      yield { type: 'status', state: 'TASK_STATE_FAILED', message: 'Not a documents command.' };
      return;
    }
    const command = input.documents;
    const files = context.message.parts
      .filter((part) => part.raw !== undefined)
      .map((part) => ({
        filename: part.filename,
        mediaType: part.mediaType,
        bytes: Buffer.from(part.raw ?? '', 'base64'),
      }));
    calls.push({ command, files, via: 'a2a' });
    const documents = stored.get(command.tenant) ?? [];
    stored.set(command.tenant, documents);
    const result = (data: unknown): AgentEvent => ({
      type: 'artifact',
      artifact: { name: RESULT_ARTIFACT_NAME, parts: [textPart('done'), dataPart(data)] },
    });

    const failure = double.failNextWith;
    if (failure !== undefined && command.op !== 'ingest') {
      double.failNextWith = undefined;
      yield {
        type: 'status',
        state: 'TASK_STATE_FAILED',
        message: [textPart(failure.message), dataPart(toErrorBody(failure))],
      };
      return;
    }
    switch (command.op) {
      case 'list':
        yield result({ documents: documents.map(info) });
        return;
      case 'get': {
        const document = documents.find((candidate) => candidate.id === command.id);
        if (document === undefined || document.original !== true) {
          const error = new NotFoundError(
            document === undefined
              ? `There is no document ${command.id ?? command.filename ?? ''} in this library.`
              : `Document ${document.id} (${document.filename}) was ingested before the RAG agent kept original files, so its bytes are not stored; upload the file again to keep them.`,
          );
          yield {
            type: 'status',
            state: 'TASK_STATE_FAILED',
            message: [textPart(error.message), dataPart(toErrorBody(error))],
          };
          return;
        }
        yield {
          type: 'artifact',
          artifact: {
            name: RESULT_ARTIFACT_NAME,
            parts: [
              textPart(document.filename),
              dataPart({ document: info(document) }),
              {
                raw: document.bytes.toString('base64'),
                filename: document.filename,
                ...(document.mediaType === undefined ? {} : { mediaType: document.mediaType }),
              },
            ],
          },
        };
        return;
      }
      case 'delete': {
        const index = documents.findIndex((document) => document.id === command.id);
        if (index !== -1) documents.splice(index, 1);
        yield result({ deleted: index !== -1 });
        return;
      }
      case 'ingest': {
        const [file] = files;
        if (file === undefined) {
          yield { type: 'status', state: 'TASK_STATE_FAILED', message: 'No file part.' };
          return;
        }
        const filename = file.filename ?? 'unnamed';
        const docType = DOC_TYPES[filename.split('.').pop()?.toLowerCase() ?? ''];
        if (docType === undefined) {
          const error = new UnsupportedMediaTypeError(
            `${filename} is not a supported document (PDF, DOCX, CSV, XLSX, TXT, MD, HTML).`,
          );
          yield {
            type: 'status',
            state: 'TASK_STATE_FAILED',
            message: [textPart(error.message), dataPart(toErrorBody(error))],
          };
          return;
        }
        if (file.bytes.subarray(0, 7).toString() === 'CORRUPT') {
          yield {
            type: 'status',
            state: 'TASK_STATE_FAILED',
            message: `${filename} cannot be read: the file is damaged.`,
          };
          return;
        }
        const hash = createHash('sha256').update(file.bytes).digest('hex');
        const existing = documents.find((document) => document.hash === hash);
        if (existing !== undefined) {
          yield result({ documents: [{ ...info(existing), duplicate: true }] });
          return;
        }
        // A file named `big…` plays one past a row limit: indexed in part, and said so.
        const partial = filename.startsWith('big')
          ? {
              truncated: true,
              warnings: ['only the first 5000 of 200000 rows were indexed (RAG_MAX_ROWS)'],
            }
          : {};
        const document: StoredDocument = {
          id: randomUUID(),
          filename,
          docType,
          chunks: file.bytes.toString('utf8').split('\n').filter(Boolean).length,
          description: `${filename}, ${file.bytes.length} bytes`,
          createdAt: new Date().toISOString(),
          ...partial,
          original: !filename.startsWith('old'),
          hash,
          bytes: file.bytes,
          mediaType: file.mediaType,
        };
        documents.unshift(document);
        yield result({ documents: [{ ...info(document), duplicate: false }] });
        return;
      }
    }
  }

  const app = express();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = buildAgentCard({
    name: 'rag-agent',
    description: 'double',
    version: '0',
    url,
    skills: [],
    internalToken: true,
  });
  app.use(
    a2aRouter({
      handler: createA2AHandler({ card, execute, store: new InMemoryTaskStore() }),
      internalToken: RAG_DOUBLE_TOKEN,
      bodyLimit: 8 * 1024 * 1024,
    }),
  );
  const internal = express.Router();
  internal.get('/documents/:id/content', (req, res) => {
    const id = String(req.params['id']);
    const tenant = typeof req.query['tenant'] === 'string' ? req.query['tenant'] : '';
    calls.push({ command: { op: 'get', tenant, id }, files: [], via: 'content-route' });
    const document = stored.get(tenant)?.find((candidate) => candidate.id === id);
    if (document === undefined || document.original !== true) {
      throw new NotFoundError(
        document === undefined
          ? `There is no document ${id} in this library.`
          : `Document ${document.id} (${document.filename}) was ingested before the RAG agent kept original files, so its bytes are not stored; upload the file again to keep them.`,
      );
    }
    res.setHeader('content-type', 'application/octet-stream');
    res.setHeader('content-length', document.bytes.length);
    res.setHeader(
      DOCUMENT_METADATA_HEADER,
      encodeContentMetadata({
        document: info(document),
        filename: document.filename,
        mediaType: document.mediaType ?? 'application/octet-stream',
      }),
    );
    res.end(document.bytes);
  });
  internal.post('/search', async (req, res) => {
    const tenant = typeof req.query['tenant'] === 'string' ? req.query['tenant'] : '';
    const { value } = await readJsonBody(req, {
      limit: 16 * 1024,
      schema: documentSearchRequestSchema,
    });
    double.searches.push({ tenant, ...value });
    const words = value.query.toLowerCase().match(/[a-z0-9]{3,}/g) ?? [];
    const hits = (stored.get(tenant) ?? [])
      .flatMap((document) =>
        document.bytes
          .toString('utf8')
          .split('\n')
          .filter(Boolean)
          .map((line, index) => ({
            documentId: document.id,
            filename: document.filename,
            chunkId: `${document.id}:${index}`,
            docType: document.docType,
            section: '',
            text: line,
            score: words.filter((word) => line.toLowerCase().includes(word)).length,
          })),
      )
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, value.limit);
    res.json({
      query: value.query,
      hits,
      confidence: hits.length === 0 ? 0 : 0.8,
      searchMode: 'hybrid',
    });
  });
  app.use('/internal', requireBearerToken({ token: RAG_DOUBLE_TOKEN }), internal);
  app.use(errorMiddleware());
  double.url = url;
  double.client = new A2AClient({ url: `${url}/a2a`, token: RAG_DOUBLE_TOKEN });
  closeServer = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return double;
}
