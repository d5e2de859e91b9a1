import { RUN_FILES_SKILL, RUN_FILES_SKILL_TAG, type AgentCard } from '@fleet/a2a';
import { buildAgentCard } from '@fleet/a2a/server';

/** The RAG agent's version, as its Agent Card states it. */
export const RAG_AGENT_VERSION = '0.1.0';

/** The skills on the RAG agent's card. `answer` is the default. */
export const RAG_SKILLS = {
  answer: 'answer',
  search: 'search',
  ingest: 'ingest',
  files: RUN_FILES_SKILL,
} as const;
/** One of the skill ids on the card. */
export type RagSkill = (typeof RAG_SKILLS)[keyof typeof RAG_SKILLS];

/** Options for {@link buildRagCard}. */
export interface BuildRagCardOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8083`. */
  url: string;
  /** Declares the fleet's bearer scheme; set when `/a2a` needs FLEET_INTERNAL_TOKEN. @default true */
  internalToken?: boolean;
  /** Lists the `files` skill (the run files commands); set when the agent keeps run files. @default true */
  runFiles?: boolean;
}

const FILE_TYPES = 'PDF, DOCX, XLSX, CSV, TXT, Markdown or HTML';

/**
 * The `files` skill: the fleet's run files, per tenant, for the fleet's services (not a skill to
 * plan a step with). Its words stay few so a planner matching requests to cards ("chart the CSV
 * file") is not drawn to it.
 */
const RUN_FILES_CARD_SKILL = {
  id: RAG_SKILLS.files,
  name: 'Run files',
  description:
    'For the fleet\'s services: keeps the files of runs per tenant until they expire. Send a data part { files: { op: "put" | "get" | "info" | "list" | "delete", tenant, … } } (put: sessionId?, nodeId?, agent?, source, expiresAt, with file parts: raw base64, filename, mediaType; get, info, delete: id; list: sessionId). Answers with the artifact "result": a data part { files: [RunFile] } (put, list), { file } (info; get, beside a file part with the bytes) or { deleted }. A file whose bytes are not what its type says is refused; an unknown, foreign or expired id is NOT_FOUND.',
  tags: ['files', RUN_FILES_SKILL_TAG, 'internal'],
  examples: ['put run files', 'get run file <id>'],
  inputModes: ['application/json'],
  outputModes: ['application/json'],
};

/**
 * The RAG agent's Agent Card: name `rag-agent`, streaming, skills `answer` (the default),
 * `search`, `ingest` and `files` (the fleet's run files, tagged `files` and `run-files`: see
 * `filesAgentOf` in `@fleet/a2a`), and the internal-token security scheme.
 *
 * @example
 * const card = buildRagCard({ url: 'http://127.0.0.1:8083' });
 */
export function buildRagCard({
  url,
  internalToken = true,
  runFiles = true,
}: BuildRagCardOptions): AgentCard {
  return buildAgentCard({
    name: 'rag-agent',
    description:
      "Answers questions from the tenant's own uploaded documents (policies, handbooks, reports, spreadsheets, notes) with cited sources. Hybrid search (vectors plus full text) over pgvector, filters read from the question (document type, file name, dates), optional LLM re-ranking; answers cite [n] document sections and say when the documents do not hold the answer.",
    version: RAG_AGENT_VERSION,
    url,
    streaming: true,
    internalToken,
    skills: [
      {
        id: RAG_SKILLS.answer,
        name: 'Answer from documents',
        description:
          'Answers a question from the internal documents with [n] citations. Send a text part with the question and the fleet node input data part { fleet: { tenant, sessionId, nodeId, dependencyOutputs, … } }. Answers with the artifact "result": a text part (the answer) and a data part { query, sources: [{ title, snippet, documentId, filename, page?, section }], chunks, confidence, filters, answeredBy, reranked }.',
        tags: ['rag', 'documents', 'search', 'knowledge', 'internal'],
        examples: [
          'What does our employee handbook say about parental leave?',
          'How much does the Team plan cost per seat according to the pricing sheet?',
          'Summarise the incident from the March 2026 post-mortem.',
          'Which support tickets in the CSV are still open?',
        ],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['text/plain', 'application/json'],
      },
      {
        id: RAG_SKILLS.search,
        name: 'Search documents',
        description:
          'Finds the passages of the internal documents that match a query, without writing an answer: the artifact "result" has a text part listing them as [n] title: snippet and a data part { query, sources, chunks, confidence, filters, reranked }.',
        tags: ['rag', 'documents', 'search', 'retrieval'],
        examples: [
          'find the passages about data retention',
          'search the PDFs for the SLA uptime figures',
        ],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['text/plain', 'application/json'],
      },
      {
        id: RAG_SKILLS.ingest,
        name: 'Manage documents',
        description: `Stores, lists, reads back and deletes a tenant's documents (${FILE_TYPES}). Send a data part { documents: { op: "ingest" | "list" | "get" | "delete", tenant, id? } } (get also takes { filename } instead of id), with file parts (raw base64, filename, mediaType) for ingest. Answers with the artifact "result": a data part { documents: [{ id, filename, docType, chunks, description, createdAt, duplicate?, original }] }, { deleted }, or for get { document } beside a file part with the original bytes. A file that cannot be read fails the task with the reason and stores nothing.`,
        tags: ['documents', 'ingest', 'upload'],
        examples: [
          'ingest handbook.pdf',
          'list my documents',
          'get the original of document <id>',
          'delete document <id>',
        ],
        inputModes: [
          'application/json',
          'application/pdf',
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          'text/csv',
          'text/plain',
          'text/markdown',
          'text/html',
        ],
        outputModes: ['application/json'],
      },
      ...(runFiles ? [RUN_FILES_CARD_SKILL] : []),
    ],
  });
}
