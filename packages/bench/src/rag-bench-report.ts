import {
  CHILDREN_PER_SECTION,
  RECALL_GOAL,
  SECTIONS,
  type RagBenchOptions,
  type RagBenchResult,
} from './rag-bench';
import { formatMs } from './stats';

/** Milliseconds as seconds with one decimal: `1.2 s`. */
function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Renders the results as Markdown for docs/benchmarks.md. */
export function formatRagBench(result: RagBenchResult, options: RagBenchOptions): string {
  const lines = [
    `Machine: ${result.machine}`,
    `Database: ${result.database}; PostgreSQL ${result.postgres}, pgvector ${result.pgvector}`,
    `Corpus: synthetic documents (${SECTIONS} sections × ${CHILDREN_PER_SECTION} child chunks of ~60–110 words, Zipf-distributed words over 300 topics), embedded with local-hashed-v1 at ${result.dimensions} dimensions; ${result.queries} questions built from words of sampled chunks; one tenant.`,
    '',
    `Ingestion (${result.ingestion.chunks} chunks in ${result.ingestion.documents} documents through the store's insert path, one transaction per document, HNSW and GIN indexes maintained):`,
    `embedding ${Math.round(result.ingestion.embedChunksPerSecond)} chunks/s, inserting ${Math.round(result.ingestion.insertChunksPerSecond)} chunks/s, together ${Math.round(result.ingestion.overallChunksPerSecond)} chunks/s.`,
    '',
    '| chunks | load | HNSW build (m, ef_construction) | hybrid p50 / p95 | full-text arm p50 / p95 | exact vector p50 / p95 | HNSW vector p50 / p95 (ef_search) | recall@10 | HNSW speed-up | index used |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const size of result.sizes) {
    const loadText =
      size.load.mode === 'incremental'
        ? `per insert, ${seconds(size.load.insertMs)}`
        : `bulk ${size.load.chunks}, ${seconds(size.load.insertMs)}`;
    const build =
      size.load.indexBuildMs === undefined
        ? `incremental (${size.load.m}, ${size.load.efConstruction})`
        : `${seconds(size.load.indexBuildMs)} (${size.load.m}, ${size.load.efConstruction})`;
    lines.push(
      `| ${size.chunks} | ${loadText} | ${build} | ${formatMs(size.hybrid.p50)} / ${formatMs(size.hybrid.p95)} | ${formatMs(size.text.p50)} / ${formatMs(size.text.p95)} | ${formatMs(size.exact.p50)} / ${formatMs(size.exact.p95)} | ${formatMs(size.chosen.p50)} / ${formatMs(size.chosen.p95)} (${size.chosen.efSearch}) | ${size.chosen.recall.toFixed(3)} | ${size.speedup.toFixed(1)}× | ${size.chosen.indexUsed ? 'yes' : 'NO'} |`,
    );
  }
  lines.push('');
  lines.push('HNSW recall@10 and latency by ef_search:');
  lines.push('');
  lines.push('| chunks | ef_search | recall@10 | p50 | p95 | plan |');
  lines.push('|---|---|---|---|---|---|');
  for (const size of result.sizes) {
    for (const point of size.hnsw) {
      lines.push(
        `| ${size.chunks} | ${point.efSearch} | ${point.recall.toFixed(3)} | ${formatMs(point.p50)} | ${formatMs(point.p95)} | ${point.indexUsed ? 'HNSW index' : 'exact scan (the planner judged it cheaper)'} |`,
      );
    }
  }
  lines.push('');
  const worst = Math.min(...result.sizes.map((size) => size.chosen.recall));
  const indexed = result.sizes.every((size) => size.chosen.indexUsed);
  lines.push(
    `Recall@10 of HNSW against the exact top 10 (goal ≥ ${RECALL_GOAL}): ${worst >= RECALL_GOAL && indexed ? 'met' : 'NOT met'} at every size (lowest ${worst.toFixed(3)}${indexed ? '' : '; at some size no measured ef_search used the index'}).`,
  );
  lines.push(
    `Settings: sizes ${options.sizes.join(', ')}; ef_search ${options.efSearch.join(', ')}; queries ${options.queries}; seed ${options.seed}. Latencies are whole store.search calls (SQL statement, joins to document and parent, the pg round trip), one query at a time.`,
  );
  return lines.join('\n');
}
