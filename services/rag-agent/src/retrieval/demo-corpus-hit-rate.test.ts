import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { createHashedEmbedder, createOpenAIEmbedder, type Embedder } from '@fleet/llm';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { createAnswerer } from '../answering';
import { createDocumentService } from '../documents';
import { createDocumentStore, migrate } from '../store';
import { openTestDatabase, type TestDatabase } from '../store/open-test-database';
import { loadDemoDocuments, loadDemoQuestions } from '../test-support/demo-corpus';
import { evaluateRetrieval, formatEvaluation } from '../test-support/evaluate-retrieval';
import { createRetriever } from './create-retriever';

const SLOW = 120_000;
const TENANT = 'demo';

/**
 * hit@5 floors. The offline pipeline (hashed embeddings + full-text search) finds the expected
 * document in the top five chunks for all but a question or two of the labelled set (docs/rag.md
 * has the measured numbers); the floors leave room for one or two more misses when the chunker or
 * the embedder changes, and fail on a real regression.
 */
const OFFLINE_HIT_FLOOR = 0.85;
const LLM_MODE_HIT_FLOOR = 0.85;
/** Offline extractive answers should quote the labelled phrase for most questions. */
const OFFLINE_ANSWER_FLOOR = 0.75;

async function ingestCorpus(database: TestDatabase, embedder: Embedder) {
  await migrate(database.database.pool, {
    embeddingModel: embedder.model,
    dimensions: embedder.dimensions,
  });
  const store = createDocumentStore({ pool: database.database.pool });
  const documents = createDocumentService({ store, embedder });
  const stored = await documents.ingest({ tenant: TENANT, files: await loadDemoDocuments() });
  return { store, stored };
}

describe('hit@5 over the demo corpus', () => {
  describe('offline mode (local hashed embeddings, extractive answers)', () => {
    let database: TestDatabase;

    beforeAll(async () => {
      database = await openTestDatabase();
    }, SLOW);
    afterAll(() => database.dispose(), SLOW);

    it(
      `finds the expected document in the top 5 for at least ${OFFLINE_HIT_FLOOR} of the questions`,
      async () => {
        const embedder = createHashedEmbedder();
        const { store, stored } = await ingestCorpus(database, embedder);
        expect(stored.length).toBeGreaterThanOrEqual(6);
        const retriever = createRetriever({ store, embedder });
        const evaluation = await evaluateRetrieval({
          retriever,
          answerer: createAnswerer(),
          tenant: TENANT,
          questions: await loadDemoQuestions(),
        });
        console.log(formatEvaluation('offline (local-hashed-v1)', evaluation));
        expect(evaluation.hitRate).toBeGreaterThanOrEqual(OFFLINE_HIT_FLOOR);
        expect(evaluation.answerRate).toBeGreaterThanOrEqual(OFFLINE_ANSWER_FLOOR);
      },
      SLOW,
    );
  });

  describe('LLM mode (OpenAI-compatible embeddings from the scripted server, no re-ranking)', () => {
    let database: TestDatabase;
    let llm: ScriptedOpenAI;

    beforeAll(async () => {
      [database, llm] = await Promise.all([openTestDatabase(), startScriptedOpenAI()]);
    }, SLOW);
    afterAll(async () => {
      await llm.close();
      await database.dispose();
    }, SLOW);

    it(
      `finds the expected document in the top 5 for at least ${LLM_MODE_HIT_FLOOR} of the questions`,
      async () => {
        const client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
        const embedder = createOpenAIEmbedder({ client, model: 'text-embedding-3-small' });
        const { store } = await ingestCorpus(database, embedder);
        const retriever = createRetriever({ store, embedder, rerank: false });
        const evaluation = await evaluateRetrieval({
          retriever,
          tenant: TENANT,
          questions: await loadDemoQuestions(),
        });
        console.log(formatEvaluation('LLM mode (scripted text-embedding-3-small)', evaluation));
        expect(evaluation.hitRate).toBeGreaterThanOrEqual(LLM_MODE_HIT_FLOOR);
        expect(llm.requests.some((request) => request.path.endsWith('/embeddings'))).toBe(true);
      },
      SLOW,
    );
  });
});
