import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { A2AClient } from '@fleet/a2a/client';
import { safeParseJson } from '@fleet/errors';
import { expandDocumentPaths } from './document-files';
import { ingestDocuments, type IngestOutcome } from './ingest-documents';
import { describeSummary, summarizeIngest, type IngestSummary } from './ingest-progress';
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
  /** The tenant the corpus goes into (`defaultTenant`: the first configured key's). */
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
 * const loaded = await loadDemoCorpus({ root, target, tenant: defaultTenant(keys).tenant });
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

/** What `fleet up` prints about the demo corpus. */
export interface DemoCorpusReport {
  /** One line: how many documents, new or unchanged, in which tenant. */
  line: string;
  /** Failed files, grouped by reason: one line per reason. */
  warnings: string[];
}

/** At most three names, then how many more. */
function listFiles(files: readonly string[]): string {
  return files.length <= 3
    ? files.join(', ')
    : `${files.slice(0, 3).join(', ')} and ${files.length - 3} more`;
}

/**
 * Words for what loading the demo corpus did: the summary line (with the tenant), and one warning
 * per distinct reason files failed for, so seven files refused for one reason make one line. When
 * the RAG agent runs degraded (`degraded`: its `/readyz` reason), the files it refused as
 * unavailable are named once as refused for that reason.
 *
 * @example
 * const { line, warnings } = reportDemoCorpus({ result, tenant: 'dev', degraded: undefined });
 */
export function reportDemoCorpus({
  result,
  tenant,
  degraded,
}: {
  result: DemoCorpusResult;
  tenant: string;
  degraded: string | undefined;
}): DemoCorpusReport {
  const groups = new Map<string, string[]>();
  for (const failure of result.failures) {
    const reason =
      degraded !== undefined && failure.code === 'SERVICE_UNAVAILABLE'
        ? 'not stored: the RAG agent cannot embed new documents while it runs degraded (above)'
        : failure.error;
    groups.set(reason, [...(groups.get(reason) ?? []), path.basename(failure.file)]);
  }
  return {
    line: `demo corpus (${DEMO_CORPUS_DIR}/): ${result.files} file${result.files === 1 ? '' : 's'} in tenant ${tenant}, ${describeSummary(result.summary)}`,
    warnings: [...groups].map(([reason, files]) => `${listFiles(files)}: ${reason}`),
  };
}
