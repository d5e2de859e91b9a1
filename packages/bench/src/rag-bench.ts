import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHashedEmbedder, type Embedder } from '@fleet/llm';
import {
  buildSearchQuery,
  createDocumentStore,
  HNSW_INDEX_OPTIONS,
  migrate,
  openDatabase,
  withTransaction,
  type ChunkToStore,
  type Database,
  type DatabaseLogger,
  type DocumentStore,
  type SearchInput,
} from '@fleet/rag-agent/store';
import { createProgress } from './progress';
import { recallAtK } from './recall';
import { percentile } from './stats';
import { createRandom, createSyntheticCorpus, type SyntheticCorpus } from './synthetic-corpus';

export { formatRagBench } from './rag-bench-report';

/** Options for {@link runRagBench}. */
export interface RagBenchOptions {
  /** A PostgreSQL server with pgvector; unset: the embedded PGlite in a temporary directory. */
  databaseUrl?: string | undefined;
  /** Corpus sizes (child chunks) to measure retrieval at, ascending. @default [10000, 100000] */
  sizes: number[];
  /** Queries per measurement. @default 100 */
  queries: number;
  /** HNSW `ef_search` values to measure recall and latency at. @default [40, 120, 200] */
  efSearch: number[];
  /** HNSW build parameter `m` for indexes the benchmark builds. @default HNSW_INDEX_OPTIONS.m (32) */
  m: number;
  /** HNSW build parameter `ef_construction` for indexes the benchmark builds. @default HNSW_INDEX_OPTIONS.efConstruction (128) */
  efConstruction: number;
  /** Embedding size of the hashed embedder. @default 384 */
  dimensions: number;
  /** Corpus seed. @default 42 */
  seed: number;
}

/** Sections (parents) per synthetic document. */
export const SECTIONS = 5;
/** Child chunks per section of a synthetic document. */
export const CHILDREN_PER_SECTION = 10;
/** Child chunks per synthetic document: 5 sections (parents) of 10 children. */
const CHUNKS_PER_DOCUMENT = SECTIONS * CHILDREN_PER_SECTION;
const TENANT = 'bench';
const INDEX_NAME = 'chunks_embedding_hnsw_idx';
/** The recall@10 an `ef_search` must reach to be chosen. */
export const RECALL_GOAL = 0.95;
/** Memory for an index build (pgvector builds in memory when the graph fits). */
const MAINTENANCE_WORK_MEM = '512MB';

const silentLogger: DatabaseLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** Latency percentiles of one kind of query, in ms. */
export interface Latency {
  p50: number;
  p95: number;
}

/** Recall and latency of the HNSW vector search at one `ef_search`. */
export interface HnswPoint extends Latency {
  efSearch: number;
  /** Mean recall@10 against the exact top 10. */
  recall: number;
  /**
   * Whether the planner used the HNSW index at this `ef_search` (EXPLAIN). pgvector's cost model
   * grows with `ef_search`, so past some value PostgreSQL scans exactly instead — recall 1, at the
   * exact scan's latency.
   */
  indexUsed: boolean;
}

/** Measurements at one corpus size. */
export interface SizeResult {
  chunks: number;
  documents: number;
  /** How the chunks beyond the previous size were loaded. */
  load: {
    mode: 'incremental' | 'bulk';
    chunks: number;
    embedMs: number;
    insertMs: number;
    /** Time to (re)build the HNSW index after a bulk load, when one was built. */
    indexBuildMs?: number;
    m: number;
    efConstruction: number;
  };
  hybrid: Latency;
  /** The full-text arm alone. */
  text: Latency;
  exact: Latency;
  hnsw: HnswPoint[];
  /**
   * The smallest `ef_search` measured at which the index is used and recall meets the goal (else
   * the best recall with the index; else the first point).
   */
  chosen: HnswPoint;
  /** exact p50 ÷ HNSW p50 at the chosen `ef_search`. */
  speedup: number;
}

/** What one run measured. */
export interface RagBenchResult {
  machine: string;
  database: string;
  postgres: string;
  pgvector: string;
  dimensions: number;
  queries: number;
  /** The first size's load through the agent's insert path (HNSW index maintained per row). */
  ingestion: {
    chunks: number;
    documents: number;
    embedChunksPerSecond: number;
    insertChunksPerSecond: number;
    overallChunksPerSecond: number;
  };
  sizes: SizeResult[];
}

interface Query {
  text: string;
  embedding: number[];
}

interface LoadResult {
  embedMs: number;
  insertMs: number;
  documents: number;
}

/** The chunks of one synthetic document: one parent per section, its children embedded. */
async function documentChunks(options: {
  corpus: SyntheticCorpus;
  embedder: Embedder;
  sample: (text: string, topic: number) => void;
}): Promise<{ chunks: ChunkToStore[]; embedMs: number; title: string }> {
  const { corpus, embedder, sample } = options;
  const document = corpus.document({
    sections: SECTIONS,
    childrenPerSection: CHILDREN_PER_SECTION,
  });
  const chunks: ChunkToStore[] = [];
  const texts: string[] = [];
  for (const section of document.sections) {
    const parentOrdinal = chunks.length;
    const parentText = section.texts.join('\n\n');
    chunks.push({
      ordinal: parentOrdinal,
      kind: 'parent',
      text: parentText,
      tokens: Math.round(parentText.split(' ').length * 1.3),
      section: `${document.title} > ${section.heading}`,
      metadata: {},
      embedding: null,
    });
    for (const text of section.texts) {
      sample(text, document.topic);
      texts.push(`${section.heading}\n${text}`);
      chunks.push({
        ordinal: chunks.length,
        kind: 'child',
        parentOrdinal,
        text,
        tokens: Math.round(text.split(' ').length * 1.3),
        section: `${document.title} > ${section.heading}`,
        metadata: {},
        embedding: null,
      });
    }
  }
  const started = performance.now();
  const vectors = await embedder.embed(texts);
  const embedMs = performance.now() - started;
  let next = 0;
  for (const chunk of chunks) {
    if (chunk.kind === 'child') chunk.embedding = vectors[next++] ?? null;
  }
  return { chunks, embedMs, title: document.title };
}

async function load(options: {
  store: DocumentStore;
  corpus: SyntheticCorpus;
  embedder: Embedder;
  chunks: number;
  firstDocument: number;
  label: string;
  sample: (text: string, topic: number) => void;
}): Promise<LoadResult> {
  const { store, corpus, embedder, chunks, firstDocument, label, sample } = options;
  const documents = Math.ceil(chunks / CHUNKS_PER_DOCUMENT);
  const progress = createProgress({ label, total: documents });
  let embedMs = 0;
  let insertMs = 0;
  for (let index = 0; index < documents; index++) {
    const prepared = await documentChunks({ corpus, embedder, sample });
    embedMs += prepared.embedMs;
    const started = performance.now();
    await store.insertDocument({
      tenant: TENANT,
      filename: `${prepared.title.replace(/\s+/g, '-')}-${firstDocument + index}.md`,
      docType: 'md',
      contentHash: `bench-${firstDocument + index}`,
      description: prepared.title,
      chunks: prepared.chunks,
    });
    insertMs += performance.now() - started;
    progress.tick();
  }
  progress.done();
  return { embedMs, insertMs, documents };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

function latency(samples: number[]): Latency {
  return { p50: percentile(samples, 0.5), p95: percentile(samples, 0.95) };
}

async function explainUsesHnsw(database: Database, input: SearchInput): Promise<boolean> {
  const query = buildSearchQuery(input, { iterativeScan: true });
  return withTransaction(database.pool, async (client) => {
    for (const setting of query.settings) await client.query(setting);
    const plan = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN ${query.text}`,
      query.values,
    );
    return plan.rows.some((row) => row['QUERY PLAN'].includes(INDEX_NAME));
  });
}

async function buildIndex(
  database: Database,
  options: { m: number; efConstruction: number },
): Promise<number> {
  const { ms } = await timed(() =>
    withTransaction(database.pool, async (client) => {
      await client.query(`SET LOCAL maintenance_work_mem = '${MAINTENANCE_WORK_MEM}'`);
      await client.query(`DROP INDEX IF EXISTS ${INDEX_NAME}`);
      await client.query(
        `CREATE INDEX ${INDEX_NAME} ON chunks USING hnsw (embedding vector_cosine_ops)
         WITH (m = ${Math.trunc(options.m)}, ef_construction = ${Math.trunc(options.efConstruction)})`,
      );
    }),
  );
  return ms;
}

async function measure(options: {
  database: Database;
  store: DocumentStore;
  queries: Query[];
  efSearch: number[];
  label: string;
}): Promise<Pick<SizeResult, 'hybrid' | 'text' | 'exact' | 'hnsw' | 'chosen' | 'speedup'>> {
  const { database, store, queries, efSearch, label } = options;
  // PGlite runs no autovacuum: give the planner statistics, as the agent's operator would.
  await database.pool.query('ANALYZE documents, chunks');
  const vectorSearch = (query: Query, extra: Partial<SearchInput>) =>
    store.search({
      tenant: TENANT,
      text: query.text,
      embedding: query.embedding,
      mode: 'vector',
      limit: 10,
      candidates: 10,
      ...extra,
    });
  // Warm the caches (and the planner) before timing.
  for (const query of queries.slice(0, 5)) {
    await vectorSearch(query, {});
    await vectorSearch(query, { exact: true });
    await store.search({ tenant: TENANT, text: query.text, embedding: query.embedding });
  }
  const progress = createProgress({ label, total: queries.length * (efSearch.length + 3) });
  const exactTimes: number[] = [];
  const truth: number[][] = [];
  for (const query of queries) {
    const { value, ms } = await timed(() => vectorSearch(query, { exact: true }));
    exactTimes.push(ms);
    truth.push(value.map((hit) => hit.distance ?? Number.POSITIVE_INFINITY));
    progress.tick();
  }
  const hnsw: HnswPoint[] = [];
  for (const ef of efSearch) {
    const times: number[] = [];
    const recalls: number[] = [];
    for (const [index, query] of queries.entries()) {
      const { value, ms } = await timed(() => vectorSearch(query, { efSearch: ef }));
      times.push(ms);
      recalls.push(
        recallAtK({
          exact: truth[index] ?? [],
          found: value.map((hit) => hit.distance ?? Number.POSITIVE_INFINITY),
          k: 10,
        }),
      );
      progress.tick();
    }
    const first = queries[0];
    hnsw.push({
      efSearch: ef,
      ...latency(times),
      recall: recalls.reduce((sum, value) => sum + value, 0) / recalls.length,
      indexUsed: first
        ? await explainUsesHnsw(database, {
            tenant: TENANT,
            text: first.text,
            embedding: first.embedding,
            mode: 'vector',
            limit: 10,
            candidates: 10,
            efSearch: ef,
          })
        : false,
    });
  }
  const hybridTimes: number[] = [];
  const textTimes: number[] = [];
  for (const query of queries) {
    const search = { tenant: TENANT, text: query.text, embedding: query.embedding };
    hybridTimes.push((await timed(() => store.search(search))).ms);
    textTimes.push((await timed(() => store.search({ ...search, mode: 'text' }))).ms);
    progress.tick();
  }
  progress.done();
  const indexed = hnsw.filter((point) => point.indexUsed);
  const chosen = indexed.find((point) => point.recall >= RECALL_GOAL) ??
    indexed.reduce<HnswPoint | undefined>(
      (best, point) => (best === undefined || point.recall > best.recall ? point : best),
      undefined,
    ) ??
    hnsw[0] ?? { efSearch: 0, p50: Number.NaN, p95: Number.NaN, recall: 0, indexUsed: false };
  const exact = latency(exactTimes);
  return {
    hybrid: latency(hybridTimes),
    text: latency(textTimes),
    exact,
    hnsw,
    chosen,
    speedup: exact.p50 / chosen.p50,
  };
}

/** The database the benchmark writes: a temporary PGlite, or a scratch schema on the server. */
async function openBenchDatabase(
  databaseUrl: string | undefined,
): Promise<{ database: Database; description: string; dispose(): Promise<void> }> {
  if (databaseUrl === undefined) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'fleet-rag-bench-'));
    const database = await openDatabase({ dataDir, logger: silentLogger });
    return {
      database,
      description: `embedded PGlite (pgvector compiled to WASM, in a worker thread) in a temporary directory, ${dataDir}`,
      async dispose() {
        await database.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  }
  // A scratch schema first in the search path: the benchmark's tables never touch the real ones.
  const schema = `rag_bench_${process.pid}_${Date.now()}`;
  const admin = await openDatabase({ databaseUrl, dataDir: os.tmpdir(), logger: silentLogger });
  try {
    await admin.pool.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.close();
  }
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema},public`);
  const database = await openDatabase({
    databaseUrl: url.toString(),
    dataDir: os.tmpdir(),
    logger: silentLogger,
    maxConnections: 2,
  });
  return {
    database,
    description: `PostgreSQL server at ${database.location} (DATABASE_URL), scratch schema ${schema}`,
    async dispose() {
      try {
        await database.pool.query(`DROP SCHEMA ${schema} CASCADE`);
      } finally {
        await database.close();
      }
    },
  };
}

/** Child texts sampled from the whole corpus as it is loaded, for questions spread over it. */
interface QuestionSampler {
  /** Offers one child text (of the given topic) to the sample. */
  sample: (text: string, topic: number) => void;
  /** The texts sampled so far. */
  sampled: { text: string; topic: number }[];
}

/** A reservoir sample of up to `queries` child texts. */
function createQuestionSampler(options: RagBenchOptions): QuestionSampler {
  const sampled: { text: string; topic: number }[] = [];
  let seen = 0;
  const random = createRandom(options.seed + 1);
  const sample = (text: string, topic: number): void => {
    seen += 1;
    if (sampled.length < options.queries) sampled.push({ text, topic });
    else {
      const slot = Math.floor(random() * seen);
      if (slot < options.queries) sampled[slot] = { text, topic };
    }
  };
  return { sample, sampled };
}

/** What every size of a run shares: the database, store, corpus, embedder and sample. */
interface RagBenchRun {
  options: RagBenchOptions;
  database: Database;
  store: DocumentStore;
  corpus: SyntheticCorpus;
  embedder: Embedder;
  sampler: QuestionSampler;
}

/** How far the corpus is loaded: chunks and documents so far. */
interface LoadedSoFar {
  chunks: number;
  documents: number;
}

/** The sampled questions about the corpus, embedded. */
async function embeddedQuestions(run: RagBenchRun): Promise<Query[]> {
  const { options, corpus, embedder, sampler } = run;
  const queries: Query[] = [];
  const questions = sampler.sampled
    .slice(0, options.queries)
    .map(({ text, topic }) => corpus.question(text, topic));
  const vectors = await embedder.embed(questions);
  for (const [index, text] of questions.entries()) {
    queries.push({ text, embedding: vectors[index] ?? [] });
  }
  return queries;
}

/**
 * Loads the corpus up to one size (the first through the agent's insert path, the others in
 * bulk without the HNSW index, then rebuilt) and measures search at that size.
 */
async function measureSize(
  run: RagBenchRun,
  { size, incremental, soFar }: { size: number; incremental: boolean; soFar: LoadedSoFar },
): Promise<{ result: SizeResult; ingestion: RagBenchResult['ingestion'] | undefined }> {
  const { options, database, store, corpus, embedder, sampler } = run;
  const chunks = Math.max(0, size - soFar.chunks);
  const customIndex =
    options.m !== HNSW_INDEX_OPTIONS.m ||
    options.efConstruction !== HNSW_INDEX_OPTIONS.efConstruction;
  if (!incremental) await database.pool.query(`DROP INDEX IF EXISTS ${INDEX_NAME}`);
  const loadResult = await load({
    store,
    corpus,
    embedder,
    chunks,
    firstDocument: soFar.documents,
    label: incremental
      ? `ingesting ${chunks} chunks (index maintained per insert)`
      : `bulk-loading ${chunks} more chunks (no HNSW index)`,
    sample: sampler.sample,
  });
  soFar.chunks += loadResult.documents * CHUNKS_PER_DOCUMENT;
  soFar.documents += loadResult.documents;
  const loaded = soFar.chunks;
  let indexBuildMs: number | undefined;
  if (!incremental || customIndex) {
    process.stderr.write(
      `building the HNSW index over ${loaded} chunks (m = ${options.m}, ef_construction = ${options.efConstruction})…\n`,
    );
    indexBuildMs = await buildIndex(database, options);
  }
  const perSecond = (ms: number) => loaded / (ms / 1000);
  const ingestion = incremental
    ? {
        chunks: loaded,
        documents: loadResult.documents,
        embedChunksPerSecond: perSecond(loadResult.embedMs),
        insertChunksPerSecond: perSecond(loadResult.insertMs),
        overallChunksPerSecond: perSecond(loadResult.embedMs + loadResult.insertMs),
      }
    : undefined;
  const queries = await embeddedQuestions(run);
  const measured = await measure({
    database,
    store,
    queries,
    efSearch: options.efSearch,
    label: `searching ${loaded} chunks (${queries.length} queries)`,
  });
  const result: SizeResult = {
    chunks: loaded,
    documents: soFar.documents,
    load: {
      mode: incremental ? 'incremental' : 'bulk',
      chunks: loadResult.documents * CHUNKS_PER_DOCUMENT,
      embedMs: loadResult.embedMs,
      insertMs: loadResult.insertMs,
      ...(indexBuildMs === undefined ? {} : { indexBuildMs }),
      ...(incremental && !customIndex
        ? HNSW_INDEX_OPTIONS
        : { m: options.m, efConstruction: options.efConstruction }),
    },
    ...measured,
  };
  return { result, ingestion };
}

/**
 * `pnpm bench rag`: ingestion rate and retrieval latency/recall of the RAG store on synthetic
 * documents embedded by the hashed embedder. The first size is loaded through the agent's own
 * insert path (one transaction per document, HNSW maintained row by row); larger sizes are
 * bulk-loaded without the HNSW index, which is then rebuilt (and timed). At each size: exact
 * (sequential scan) top-10 as ground truth, HNSW top-10 at each `ef_search` (recall@10, latency),
 * hybrid search latency, and EXPLAIN to confirm the index is used.
 */
export async function runRagBench(options: RagBenchOptions): Promise<RagBenchResult> {
  const embedder = createHashedEmbedder({ dimensions: options.dimensions });
  const corpus = createSyntheticCorpus({ seed: options.seed });
  const sizes = [...options.sizes].sort((a, b) => a - b);
  const opened = await openBenchDatabase(options.databaseUrl);
  const { database } = opened;
  try {
    await migrate(database.pool, {
      embeddingModel: embedder.model,
      dimensions: embedder.dimensions,
    });
    const store = createDocumentStore({ pool: database.pool });
    const versions = await database.pool.query<{ postgres: string; pgvector: string }>(
      `SELECT current_setting('server_version') AS postgres,
              (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS pgvector`,
    );
    const total = sizes.at(-1) ?? 0;
    const run: RagBenchRun = {
      options,
      database,
      store,
      corpus,
      embedder,
      sampler: createQuestionSampler(options),
    };
    const results: SizeResult[] = [];
    const soFar: LoadedSoFar = { chunks: 0, documents: 0 };
    let ingestion: RagBenchResult['ingestion'] | undefined;
    for (const [position, size] of sizes.entries()) {
      const measured = await measureSize(run, { size, incremental: position === 0, soFar });
      ingestion = measured.ingestion ?? ingestion;
      results.push(measured.result);
    }
    if (total > 0 && ingestion === undefined) throw new Error('nothing was ingested');
    const cpus = os.cpus();
    return {
      machine: `${cpus[0]?.model ?? 'unknown CPU'} × ${cpus.length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`,
      database: opened.description,
      postgres: versions.rows[0]?.postgres ?? 'unknown',
      pgvector: versions.rows[0]?.pgvector ?? 'unknown',
      dimensions: embedder.dimensions,
      queries: options.queries,
      ingestion: ingestion ?? {
        chunks: 0,
        documents: 0,
        embedChunksPerSecond: 0,
        insertChunksPerSecond: 0,
        overallChunksPerSecond: 0,
      },
      sizes: results,
    };
  } finally {
    await opened.dispose();
  }
}
