import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { A2AClient } from '@fleet/a2a/client';
import { safeParseJson } from '@fleet/errors';
import { expandDocumentPaths } from './document-files';
import { ingestDocuments, type IngestOutcome } from './ingest-documents';
import { summarizeIngest, type IngestSummary } from './ingest-progress';
import type { RagAgentTarget } from './rag-agent-target';

/** The demo corpus `fleet up` loads, relative to the repository root. */
export const DEMO_CORPUS_DIR = 'services/rag-agent/demo-corpus';

/** The corpus's evaluation questions: not a document, never ingested. */
export const DEMO_QUESTIONS_FILE = 'questions.json';

/** What loading the demo corpus did. */
export interface DemoCorpusResult {
  /** How many files the corpus has. */
  files: number;
  summary: IngestSummary;
  failures: Extract<IngestOutcome, { status: 'failed' }>[];
}

/** Options for {@link loadDemoCorpus}. */
export interface LoadDemoCorpusOptions {
  /** The repository root. */
  root: string;
  target: RagAgentTarget;
  /** The tenant the corpus goes into (the dev key's). */
  tenant: string;
  /** How long one file may take. @default 120000 */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Ingests every document of the demo corpus (everything in {@link DEMO_CORPUS_DIR} but
 * `questions.json`) into a tenant, with the same code as `fleet ingest`. Files already stored are
 * no-ops on the agent's side (same content hash), so every `fleet up` can call it. Resolves to
 * `undefined` when the repository has no demo corpus; an unreachable agent rejects.
 *
 * @example
 * const loaded = await loadDemoCorpus({ root, target, tenant: DEV_TENANT });
 */
export async function loadDemoCorpus({
  root,
  target,
  tenant,
  timeoutMs = 120_000,
  signal,
}: LoadDemoCorpusOptions): Promise<DemoCorpusResult | undefined> {
  const directory = path.join(root, DEMO_CORPUS_DIR);
  if (!existsSync(directory)) return undefined;
  const { files } = await expandDocumentPaths({
    paths: [directory],
    cwd: root,
    exclude: [DEMO_QUESTIONS_FILE],
  });
  if (files.length === 0) return undefined;
  const outcomes = await ingestDocuments({
    client: new A2AClient({ url: `${target.url}/a2a`, token: target.token }),
    agentUrl: target.url,
    tenant,
    files,
    timeoutMs,
    ...(signal === undefined ? {} : { signal }),
  });
  return {
    files: files.length,
    summary: summarizeIngest(outcomes),
    failures: outcomes.filter(
      (outcome): outcome is Extract<IngestOutcome, { status: 'failed' }> =>
        outcome.status === 'failed',
    ),
  };
}

/** Entries of `questions.json` as far as the runner cares: the question text. */
const questionsSchema = z.union([
  z.array(z.looseObject({ question: z.string().min(1) })),
  z.looseObject({ questions: z.array(z.looseObject({ question: z.string().min(1) })) }),
]);

/** Asked when the corpus names no question of its own. */
const FALLBACK_QUESTION = 'What do our documents cover?';

/**
 * A question about the demo corpus for the printed examples: the first one of its
 * `questions.json`, phrased so the planner routes it to the RAG agent ("… according to our
 * documents?"). Falls back to a generic question when the file is missing or unreadable.
 */
export async function demoQuestion(root: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path.join(root, DEMO_CORPUS_DIR, DEMO_QUESTIONS_FILE), 'utf8');
  } catch {
    return FALLBACK_QUESTION;
  }
  const parsed = safeParseJson({ text, schema: questionsSchema });
  if (!parsed.success) return FALLBACK_QUESTION;
  const entries = Array.isArray(parsed.value) ? parsed.value : parsed.value.questions;
  const question = entries[0]?.question.trim();
  if (question === undefined || question === '') return FALLBACK_QUESTION;
  if (/\b(documents?|docs)\b/i.test(question)) return question;
  // No comma: the heuristic planner splits "According to our documents, …" into two steps.
  return `${question.replace(/[?.!\s]+$/, '')} according to our documents?`;
}
