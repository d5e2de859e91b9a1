import { randomUUID } from 'node:crypto';
import { documentMediaType, isDocumentFile } from '@fleet/runner';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createMessage,
  dataPart,
  partsText,
  RESULT_ARTIFACT_NAME,
  textPart,
  type Part,
  type Task,
} from '@fleet/a2a';
import { A2AClient } from '@fleet/a2a/client';
import type { Environment } from '@fleet/config';
import { startRagAgentInProcess } from '@fleet/rag-agent/in-process';
import type { Fact, PartCase } from './answer-cases';
import { missingFacts } from './match-facts';

/** The demo corpus `pnpm fleet up` loads (packages/runner/src/demo-corpus.ts). */
export const DEMO_CORPUS_DIR = path.resolve(
  __dirname,
  '..',
  '..',
  '..',
  '..',
  'services',
  'rag-agent',
  'demo-corpus',
);

/** The corpus's retrieval questions: not a document, never ingested (as `fleet up` skips it). */
const DEMO_QUESTIONS_FILE = 'questions.json';

/** The tenant the corpus goes into. */
const TENANT = 'eval';
/** How long one upload or one question may take. */
const TIMEOUT_MS = 120_000;

/** How one question fared. */
export interface AnswerOutcome {
  case: PartCase;
  /** The answer's text (`''` when the task failed). */
  answer: string;
  /** The facts the answer does not state. */
  missing: Fact[];
  /** `llm` or `extractive`, from the answer's data part. */
  answeredBy: string | undefined;
  /** Why the task did not complete, when it did not. */
  error?: string;
}

/** What the evaluation ran against. */
export interface AnswerRun {
  mode: 'offline' | 'llm';
  upstream: { baseURL: string; model: string } | undefined;
  embeddingModel: string;
  documents: string[];
  outcomes: AnswerOutcome[];
}

/** Progress lines while ingesting and asking. */
export type AnswerProgress =
  | { kind: 'ingest'; file: string; index: number; total: number }
  | { kind: 'ask'; index: number; total: number; id: string };

/** Options for {@link evaluateAnswers}. */
export interface EvaluateAnswersOptions {
  cases: readonly PartCase[];
  /** The RAG agent's environment: `{}` offline; with an upstream for `--llm`. */
  environment: Environment;
  /** Where the corpus is read from. @default {@link DEMO_CORPUS_DIR} */
  corpusDir?: string;
  onProgress?: (progress: AnswerProgress) => void;
}

function resultText(task: Task): { text: string; answeredBy: string | undefined } {
  const artifact = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
  const parts: Part[] = artifact?.parts ?? [];
  const data = parts.find((part) => part.data !== undefined)?.data;
  const answeredBy =
    typeof data === 'object' && data !== null && 'answeredBy' in data
      ? String(data.answeredBy)
      : undefined;
  return { text: partsText(parts), answeredBy };
}

function failure(task: Task): string | undefined {
  if (task.status.state === 'TASK_STATE_COMPLETED') return undefined;
  const text = partsText(task.status.message?.parts ?? []).trim();
  return `${task.status.state}${text === '' ? '' : `: ${text}`}`;
}

/**
 * Starts the RAG agent in-process (embedded database in a temporary directory), ingests every
 * document of the demo corpus over A2A as `pnpm fleet up` does (one file per documents command),
 * then asks every case's question as a plan node would (the `answer` skill) and checks the answer
 * for the case's facts. The temporary directory is removed afterwards.
 *
 * @example
 * const run = await evaluateAnswers({ cases: await loadAnswerCases(), environment: {} });
 */
export async function evaluateAnswers({
  cases,
  environment,
  corpusDir = DEMO_CORPUS_DIR,
  onProgress,
}: EvaluateAnswersOptions): Promise<AnswerRun> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'fleet-eval-answers-'));
  try {
    const agent = await startRagAgentInProcess({ environment, dataDir });
    try {
      const client = new A2AClient({
        url: `${agent.url}/a2a`,
        token: agent.token,
        timeoutMs: TIMEOUT_MS,
      });
      const files = (await readdir(corpusDir))
        .filter((name) => name !== DEMO_QUESTIONS_FILE && isDocumentFile(name))
        .sort();
      for (const [index, file] of files.entries()) {
        onProgress?.({ kind: 'ingest', file, index, total: files.length });
        const bytes = await readFile(path.join(corpusDir, file));
        const reply = await client.sendMessage({
          message: createMessage({
            parts: [
              dataPart({ documents: { op: 'ingest', tenant: TENANT } }),
              {
                raw: bytes.toString('base64'),
                filename: file,
                mediaType: documentMediaType(file),
              },
            ],
          }),
        });
        const error = 'status' in reply ? failure(reply) : 'the agent answered with a message';
        if (error !== undefined) throw new Error(`Ingesting ${file} failed: ${error}`);
      }
      const outcomes: AnswerOutcome[] = [];
      for (const [index, entry] of cases.entries()) {
        onProgress?.({ kind: 'ask', index, total: cases.length, id: entry.id });
        const reply = await client.sendMessage({
          message: createMessage({
            parts: [
              textPart(entry.question),
              dataPart({
                fleet: {
                  sessionId: `eval-${randomUUID()}`,
                  nodeId: 'docs',
                  tenant: TENANT,
                  dependencyOutputs: {},
                },
              }),
            ],
          }),
        });
        if (!('status' in reply)) {
          outcomes.push({
            case: entry,
            answer: '',
            missing: entry.facts,
            answeredBy: undefined,
            error: 'the agent answered with a message, not a task',
          });
          continue;
        }
        const { text, answeredBy } = resultText(reply);
        const error = failure(reply);
        outcomes.push({
          case: entry,
          answer: text,
          missing: missingFacts(text, entry.facts),
          answeredBy,
          ...(error === undefined ? {} : { error }),
        });
      }
      return {
        mode: agent.upstream === undefined ? 'offline' : 'llm',
        upstream: agent.upstream,
        embeddingModel: agent.embeddingModel,
        documents: files,
        outcomes,
      };
    } finally {
      await agent.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
