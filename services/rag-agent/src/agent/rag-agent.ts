import { randomUUID } from 'node:crypto';
import {
  cleanRunFileName,
  type DocumentInfo,
  type DocumentsCommand,
  type FilesCommand,
  type NodeInput,
  type RunFile,
  type RunFileStore,
} from '@fleet/a2a';
import type { AgentContext, AgentExecute } from '@fleet/a2a/server';
import {
  completed,
  dependencyContext,
  failed,
  plural,
  rejected,
  result,
  resultChunks,
  resultEnd,
  working,
  type AgentEvents as Events,
  type ErrorStatusOptions,
} from '@fleet/agent-kit';
import { ServiceUnavailableError, toFleetError } from '@fleet/errors';
import { getActiveSpan, setSessionAttributes } from '@fleet/telemetry';
import { groupSources, type Answerer } from '../answering';
import { shorten } from '../text';
import { formatBytes, type DocumentSelector, type DocumentService } from '../documents';
import { leadingNotes, type Retrieval, type Retriever } from '../retrieval';
import { RAG_SKILLS } from './rag-card';
import { decodeFilePart, readRagInput, type FilePart, type RunFilePart } from './read-rag-input';
import type {
  AnswerResultData,
  DocumentsResultData,
  FilesResultData,
  FilterReportData,
  SearchResultData,
} from './result-data';

/** Options for {@link createRagAgent}. */
export interface CreateRagAgentOptions {
  documents: DocumentService;
  retriever: Retriever;
  answerer: Answerer;
  /** Largest file accepted, in bytes (checked before decoding). @default 26214400 (25 MiB) */
  maxUploadBytes?: number;
  /**
   * The fleet's run files (`createRunFileStore`), which the `files` commands read and write;
   * absent: the agent answers them `SERVICE_UNAVAILABLE`.
   */
  runFiles?: RunFileStore | undefined;
  /** Largest run file accepted, in bytes (checked before decoding). @default 16777216 (16 MiB) */
  maxRunFileBytes?: number;
}

function describeRunFile(file: RunFile): string {
  return `${file.name} (${file.id}, ${file.mediaType}, ${formatBytes(file.size)})`;
}

function filterData(retrieval: Retrieval): FilterReportData {
  const { requested, mentions, applied, note } = retrieval.filters;
  return { requested, mentions, applied, ...(note === undefined ? {} : { note }) };
}

/** How the chunks were searched, and the warning when it was full text only. */
function searchModeData(retrieval: Retrieval): Pick<SearchResultData, 'searchMode' | 'warnings'> {
  return {
    searchMode: retrieval.searchMode,
    ...(retrieval.notice === undefined ? {} : { warnings: [retrieval.notice] }),
  };
}

/**
 * The fleet's mark of a failure worth sending again (docs/a2a.md, "Retryable failures"): the data
 * part carries `retryable: true` beside the error when the agent is only busy or a dependency is
 * briefly unreachable (a `SERVICE_UNAVAILABLE` that says it is retryable: too many uploads waiting
 * to be read, the database down), so the orchestrator tries the step again.
 */
function retryHint(error: unknown): ErrorStatusOptions {
  const fleetError = toFleetError(error);
  return fleetError.code === 'SERVICE_UNAVAILABLE' && fleetError.isRetryable
    ? { extra: { retryable: true } }
    : {};
}

function describeIngest(documents: readonly DocumentInfo[]): string {
  const lines = documents.map((document) => {
    const stored =
      document.duplicate === true
        ? `${document.filename} was already stored (document ${document.id}); nothing changed.`
        : `Ingested ${document.filename} as document ${document.id} (${document.docType}, ${plural(document.chunks, 'chunk')}).`;
    const warnings = document.warnings ?? [];
    return warnings.length > 0 ? `${stored} Partly indexed: ${warnings.join('; ')}.` : stored;
  });
  return lines.join('\n');
}

function describeList(documents: readonly DocumentInfo[]): string {
  if (documents.length === 0) return 'There are no documents in this library.';
  const names = documents.map((document) => `${document.filename} (${document.id})`);
  return `${plural(documents.length, 'document')}: ${names.join(', ')}.`;
}

/** {@link createRagAgent}'s options with their defaults: what each command and skill uses. */
type RagAgentParts = Required<Omit<CreateRagAgentOptions, 'runFiles'>> &
  Pick<CreateRagAgentOptions, 'runFiles'>;

/** A run files command (`put`, `get`, `info`, `list`, `delete`) against the run file store. */
async function* runFilesCommand(
  { runFiles, maxRunFileBytes }: RagAgentParts,
  { command, parts }: { command: FilesCommand; parts: readonly RunFilePart[] },
  signal: AbortSignal,
): Events {
  if (runFiles === undefined) {
    throw new ServiceUnavailableError('This RAG agent keeps no run files.');
  }
  switch (command.op) {
    case 'put': {
      const uploads = parts.map((part, index) => {
        const name = cleanRunFileName(part.filename, `file-${index + 1}`);
        const decoded = decodeFilePart(
          { filename: name, raw: part.raw },
          maxRunFileBytes,
          'RAG_MAX_RUN_FILE_BYTES',
        );
        return { name, mediaType: part.mediaType ?? '', bytes: decoded.bytes };
      });
      const kept = await runFiles.put({
        tenant: command.tenant,
        files: uploads,
        sessionId: command.sessionId,
        nodeId: command.nodeId,
        agent: command.agent,
        source: command.source,
        expiresAt: command.expiresAt,
        signal,
      });
      const data: FilesResultData = { files: kept };
      yield result(`Kept ${kept.map(describeRunFile).join(', ')}.`, data);
      yield completed(`Kept ${plural(kept.length, 'file')}.`);
      return;
    }
    case 'get': {
      const { file, bytes } = await runFiles.get({
        tenant: command.tenant,
        id: command.id,
        signal,
      });
      const data: FilesResultData = { file };
      yield result(`${describeRunFile(file)}.`, data, [
        { raw: bytes.toString('base64'), filename: file.name, mediaType: file.mediaType },
      ]);
      yield completed(`Read ${file.name}.`);
      return;
    }
    case 'info': {
      const file = await runFiles.info({ tenant: command.tenant, id: command.id, signal });
      const data: FilesResultData = { file };
      yield result(`${describeRunFile(file)}, kept until ${file.expiresAt}.`, data);
      yield completed(`Described ${file.name}.`);
      return;
    }
    case 'list': {
      const listed = await runFiles.list({
        tenant: command.tenant,
        sessionId: command.sessionId,
        signal,
      });
      const data: FilesResultData = { files: listed };
      yield result(
        listed.length === 0
          ? `Session ${command.sessionId} has no files.`
          : `${plural(listed.length, 'file')}: ${listed.map(describeRunFile).join(', ')}.`,
        data,
      );
      yield completed(`Listed ${plural(listed.length, 'file')}.`);
      return;
    }
    case 'delete': {
      const deleted = await runFiles.remove({ tenant: command.tenant, id: command.id, signal });
      const data: FilesResultData = { deleted };
      yield result(
        deleted ? `Deleted file ${command.id}.` : `There is no file ${command.id}.`,
        data,
      );
      yield completed(deleted ? 'Deleted 1 file.' : 'Nothing to delete.');
      return;
    }
  }
}

/** A documents command (`ingest`, `list`, `get`, `delete`) against the document service. */
async function* runDocuments(
  { documents, maxUploadBytes }: RagAgentParts,
  { command, files }: { command: DocumentsCommand; files: readonly FilePart[] },
  signal: AbortSignal,
): Events {
  switch (command.op) {
    case 'ingest': {
      yield working(`Ingesting ${files.map((file) => file.filename).join(', ')}…`);
      const uploads = files.map((file) => decodeFilePart(file, maxUploadBytes));
      const stored = await documents.ingest({ tenant: command.tenant, files: uploads, signal });
      const data: DocumentsResultData = { documents: stored };
      yield result(describeIngest(stored), data);
      const added = stored.filter((document) => document.duplicate !== true).length;
      yield completed(
        `Ingested ${plural(added, 'new document')}${stored.length > added ? ` (${stored.length - added} already stored)` : ''}.`,
      );
      return;
    }
    case 'list': {
      const listed = await documents.list(command.tenant);
      const data: DocumentsResultData = { documents: listed };
      yield result(describeList(listed), data);
      yield completed(`Listed ${plural(listed.length, 'document')}.`);
      return;
    }
    case 'get': {
      const { tenant, id, filename } = command;
      // The schema lets exactly one of id and filename through.
      const selector: DocumentSelector =
        id !== undefined ? { tenant, id } : { tenant, filename: filename ?? '' };
      const found = await documents.get(selector);
      const data: DocumentsResultData = { document: found.document };
      yield result(
        `${found.filename} (document ${found.document.id}, ${found.mediaType}, ${formatBytes(found.bytes.byteLength)}).`,
        data,
        [
          {
            raw: Buffer.from(
              found.bytes.buffer,
              found.bytes.byteOffset,
              found.bytes.byteLength,
            ).toString('base64'),
            filename: found.filename,
            mediaType: found.mediaType,
          },
        ],
      );
      yield completed(`Read ${found.filename}.`);
      return;
    }
    case 'delete': {
      const deleted = await documents.delete({ tenant: command.tenant, id: command.id });
      const data: DocumentsResultData = { deleted };
      yield result(
        deleted
          ? `Deleted document ${command.id} and its chunks.`
          : `There is no document ${command.id} in this library.`,
        data,
      );
      yield completed(deleted ? 'Deleted 1 document.' : 'Nothing to delete.');
      return;
    }
  }
}

/** The `search` skill: the passages found for the question, with their sources. */
async function* runSearch(
  { retriever }: RagAgentParts,
  { question, node }: { question: string; node: NodeInput['fleet'] },
  signal: AbortSignal,
): Events {
  yield working('Searching the documents…', { stage: 'searching' });
  const retrieval = await retriever.retrieve({ tenant: node.tenant, question, signal });
  const { sources, chunks } = groupSources(retrieval.chunks);
  const data: SearchResultData = {
    query: retrieval.query,
    sources,
    chunks,
    confidence: retrieval.confidence,
    filters: filterData(retrieval),
    reranked: retrieval.reranked,
    ...(retrieval.rerankError === undefined ? {} : { rerankError: retrieval.rerankError }),
    ...searchModeData(retrieval),
  };
  const note = leadingNotes(retrieval, '\n');
  const text =
    sources.length === 0
      ? `${note}No passage in the documents matches this.`
      : `${note}Found ${plural(chunks.length, 'passage')} in ${plural(sources.length, 'section')}:\n${sources
          .map((source, index) => `[${index + 1}] ${source.title}: ${shorten(source.snippet, 200)}`)
          .join('\n')}`;
  yield result(text, data);
  yield completed(
    `Found ${plural(chunks.length, 'passage')} (confidence ${retrieval.confidence.toFixed(2)}).`,
  );
}

/** The `answer` skill: a cited answer, streamed as chunks of the `result` artifact. */
async function* runAnswer(
  { retriever, answerer }: RagAgentParts,
  { question, node }: { question: string; node: NodeInput['fleet'] },
  signal: AbortSignal,
): Events {
  yield working('Searching the documents…', { stage: 'searching' });
  const retrieval = await retriever.retrieve({ tenant: node.tenant, question, signal });
  if (retrieval.chunks.length > 0) {
    yield working(`Writing the answer from ${plural(retrieval.chunks.length, 'passage')}…`, {
      stage: 'answering',
    });
  }
  // The answer streams as chunks of the `result` artifact; the last chunk holds it whole.
  const artifactId = randomUUID();
  const answer = yield* resultChunks(
    artifactId,
    answerer.stream({ question, retrieval, context: dependencyContext(node), signal }),
  );
  const data: AnswerResultData = {
    query: retrieval.query,
    sources: answer.sources,
    chunks: answer.chunks,
    confidence: answer.confidence,
    filters: filterData(retrieval),
    reranked: retrieval.reranked,
    ...(retrieval.rerankError === undefined ? {} : { rerankError: retrieval.rerankError }),
    ...searchModeData(retrieval),
    answeredBy: answer.answeredBy,
    ...(answer.llmError === undefined ? {} : { llmError: answer.llmError }),
  };
  yield resultEnd(artifactId, answer.text, data);
  yield completed(
    `Answered from ${plural(answer.sources.length, 'source')} (confidence ${answer.confidence.toFixed(2)}).`,
  );
}

/**
 * The RAG agent (docs/architecture.md §4): one task per message.
 *
 * - A documents command (`{ documents: { op, tenant, id? } }`): `ingest` the file parts (all or
 *   none), `list`, `get` (the original bytes as a file part, by id or unique filename; an unknown
 *   or foreign id fails with `NOT_FOUND`) or `delete`; the `result` artifact's data part is
 *   `{ documents: DocumentInfo[] }`, `{ document }` or `{ deleted }`. A file that cannot be stored (too big, unpacking past the limits,
 *   unsupported, damaged, empty, nested too deep, too long or too big to read within the parse
 *   budgets) fails the task with the reason in text and `{ error: { code, message, details } }`,
 *   and nothing is stored; one stored in part says so (`truncated`, `warnings`). A database that
 *   cannot be reached, or a parse queue that is full, fails any command or question with
 *   `SERVICE_UNAVAILABLE`, `details.retryAfterSeconds` and `retryable: true` in the data part.
 * - A run files command (`{ files: { op, tenant, … } }`, `filesCommandSchema`): `put` the file
 *   parts (all or none; names cleaned, types checked against the bytes), `get` (the bytes as a
 *   file part beside `{ file }`), `info`, `list` (a session's, oldest first) or `delete`; an
 *   unknown, foreign or expired id fails `get`/`info` with `NOT_FOUND`, a refused file fails
 *   `put` with `VALIDATION_ERROR` or `PAYLOAD_TOO_LARGE` naming it.
 * - A plan node (question in the text part, `{ fleet: … }` with the tenant): skill `search` returns
 *   the passages found; `answer` (the default) writes a cited answer, with the earlier steps'
 *   answers as context, streamed as chunks of the `result` artifact while the model writes it
 *   (citations numbered in the order the answer first cites them), the last chunk holding the
 *   whole text and data. The `result` artifact: the text, and the data part
 *   (`answerResultDataSchema` / `searchResultDataSchema`).
 *
 * Anything else is REJECTED with what the agent needs. Cancellation stops the LLM and embedding
 * calls.
 *
 * @example
 * const execute = createRagAgent({ documents, retriever, answerer, maxUploadBytes });
 */
export function createRagAgent({
  documents,
  retriever,
  answerer,
  maxUploadBytes = 25 * 1024 * 1024,
  runFiles,
  maxRunFileBytes = 16 * 1024 * 1024,
}: CreateRagAgentOptions): AgentExecute {
  const parts: RagAgentParts = {
    documents,
    retriever,
    answerer,
    maxUploadBytes,
    runFiles,
    maxRunFileBytes,
  };
  return async function* ragAgent(context: AgentContext): Events {
    const input = readRagInput(context.message.parts);
    if (input.kind === 'invalid') {
      yield rejected(input.reason);
      return;
    }
    try {
      if (input.kind === 'documents') {
        yield* runDocuments(parts, { command: input.command, files: input.files }, context.signal);
        return;
      }
      if (input.kind === 'files') {
        yield* runFilesCommand(
          parts,
          { command: input.command, parts: input.files },
          context.signal,
        );
        return;
      }
      setSessionAttributes(getActiveSpan(), { sessionId: input.node.sessionId });
      if (input.node.skill === RAG_SKILLS.search) {
        yield* runSearch(parts, { question: input.question, node: input.node }, context.signal);
      } else {
        yield* runAnswer(parts, { question: input.question, node: input.node }, context.signal);
      }
    } catch (error) {
      if (context.signal.aborted) throw error;
      yield failed(error, retryHint(error));
    }
  };
}
