import { toSql } from 'pgvector/pg';
import { ValidationError } from '@fleet/errors';
import type { SearchFilters, SearchInput, SearchMode } from './document-store';

/** Reciprocal rank fusion's constant: score = Σ 1/(RRF_K + rank). */
export const RRF_K = 60;
/** Hits a search returns by default. */
export const DEFAULT_SEARCH_LIMIT = 20;
/** The least candidates each arm contributes. */
export const MIN_CANDIDATES = 40;
/**
 * The least HNSW `ef_search` a search sets (pgvector's own default is 40): recall@10 ≥ 0.95 with the
 * index's build parameters on the benchmark corpus (`pnpm bench rag`).
 */
export const MIN_EF_SEARCH = 120;
/** Upper bounds on the numbers a caller may pass. */
const MAX_LIMIT = 1000;
const MAX_EF_SEARCH = 1000;

/** A search as SQL: session settings for its transaction, then one parameterised statement. */
export interface SearchQuery {
  /** `SET LOCAL …` statements to run first, in the same transaction (empty: none needed). */
  settings: string[];
  text: string;
  values: unknown[];
}

/** What {@link buildSearchQuery} needs besides the search. */
export interface BuildSearchQueryOptions {
  /** pgvector ≥ 0.8: filtered HNSW scans continue until enough rows pass the filters. */
  iterativeScan: boolean;
}

function positiveInteger(options: { name: string; value: number; max: number }): number {
  const { name, value, max } = options;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new ValidationError(`${name} must be an integer from 1 to ${max}, got ${value}.`);
  }
  return value;
}

function instant(name: string, value: string): string {
  if (Number.isNaN(Date.parse(value))) {
    throw new ValidationError(`${name} must be an ISO 8601 date or time, got '${value}'.`);
  }
  return value;
}

/**
 * Quotes or a `-word` exclusion: the text means websearch syntax. (`or` alone does not: questions
 * say "monthly or annual" without meaning an operator.)
 */
const WEB_SEARCH_SYNTAX = /"|(?:^|\s)-[\p{L}\p{N}]/u;

/**
 * The full-text query for `text`, as SQL over its parameter. Text in websearch syntax goes through
 * `websearch_to_tsquery` as written (all words required, phrases, exclusions). Plain text — a
 * question, usually — matches chunks containing any of its words (`plainto_tsquery`'s lexemes
 * joined by `|` instead of `&`): requiring every word of a question would leave the arm empty
 * for most questions, and `ts_rank_cd` already ranks chunks with more (and closer) matches first.
 */
export function fullTextQuery(text: string, parameter: string): string {
  // websearch_to_tsquery also reads `or` between words as OR, once the text is in that syntax.
  if (WEB_SEARCH_SYNTAX.test(text)) return `websearch_to_tsquery('english', ${parameter})`;
  return `replace(plainto_tsquery('english', ${parameter})::text, ' & ', ' | ')::tsquery`;
}

/** `%`, `_` and `\` match literally in an ILIKE pattern once escaped (backslash is the default). */
function likeSubstring(value: string): string {
  return `%${value.replace(/[\\%_]/g, (match) => `\\${match}`)}%`;
}

/** SQL conditions on `d` (documents) for the filters, adding their parameters. */
function filterConditions(
  filters: SearchFilters | undefined,
  parameter: (value: unknown) => string,
): string[] {
  if (!filters) return [];
  const conditions: string[] = [];
  if (filters.docTypes !== undefined) {
    conditions.push(`d.doc_type = ANY(${parameter(filters.docTypes)}::text[])`);
  }
  if (filters.filenames !== undefined) {
    conditions.push(
      `d.filename ILIKE ANY(${parameter(filters.filenames.map(likeSubstring))}::text[])`,
    );
  }
  if (filters.createdAfter !== undefined) {
    conditions.push(
      `d.created_at >= ${parameter(instant('createdAfter', filters.createdAfter))}::timestamptz`,
    );
  }
  if (filters.createdBefore !== undefined) {
    conditions.push(
      `d.created_at < ${parameter(instant('createdBefore', filters.createdBefore))}::timestamptz`,
    );
  }
  return conditions;
}

/** A search's result count, candidates per arm and HNSW `ef_search`, checked against their bounds. */
function searchBudgets(input: SearchInput): {
  limit: number;
  candidates: number;
  efSearch: number;
} {
  const limit = positiveInteger({
    name: 'limit',
    value: input.limit ?? DEFAULT_SEARCH_LIMIT,
    max: MAX_LIMIT,
  });
  const candidates = positiveInteger({
    name: 'candidates',
    value: input.candidates ?? Math.max(limit, MIN_CANDIDATES),
    max: MAX_LIMIT,
  });
  const efSearch = Math.max(
    candidates,
    positiveInteger({
      name: 'efSearch',
      value: input.efSearch ?? MIN_EF_SEARCH,
      max: MAX_EF_SEARCH,
    }),
  );
  return { limit, candidates, efSearch };
}

/** The `fused` CTE: the arms' ranks fused by reciprocal rank (one arm's alone when one runs). */
function fusedCte(useVector: boolean, useText: boolean): string {
  return useVector && useText
    ? `fused AS (
    SELECT coalesce(vr.id, t.id) AS id, vr.rank AS vector_rank, t.rank AS text_rank, vr.distance,
      coalesce(1.0 / (${RRF_K} + vr.rank), 0) + coalesce(1.0 / (${RRF_K} + t.rank), 0) AS score
    FROM vr FULL OUTER JOIN t ON t.id = vr.id
  )`
    : useVector
      ? `fused AS (
    SELECT id, rank AS vector_rank, NULL::bigint AS text_rank, distance,
      1.0 / (${RRF_K} + rank) AS score
    FROM vr
  )`
      : `fused AS (
    SELECT id, NULL::bigint AS vector_rank, rank AS text_rank, NULL::float8 AS distance,
      1.0 / (${RRF_K} + rank) AS score
    FROM t
  )`;
}

/**
 * Builds the one statement a search runs (docs/architecture.md §7, the RAG contract):
 *
 * - vector arm `v`: the tenant's child chunks nearest the query embedding by cosine distance
 *   (`<=>`), top `candidates`. It can use the HNSW index because it orders by exactly
 *   `embedding <=> $q` with a LIMIT; `exact` orders by `(embedding <=> $q) + 0` instead, an
 *   expression no index serves, so every chunk is compared (the benchmark's ground truth). With
 *   pgvector ≥ 0.8 the scan is iterative (`hnsw.iterative_scan = relaxed_order`), so tenant and
 *   filters do not starve it, and the materialised candidates are re-sorted by distance.
 * - text arm `t`: chunks matching the query text (see {@link fullTextQuery}: websearch syntax, or
 *   any of its words) on the generated `tsv`, ranked by `ts_rank_cd`, top `candidates` (GIN
 *   index).
 * - fusion: a full outer join of the arms, score = 1/(60 + vector rank) + 1/(60 + text rank),
 *   joined to the chunk's document and its parent chunk's text.
 *
 * Both arms filter by tenant, children only, and the filters. `mode` `vector` or `text` runs one
 * arm (scored by the same formula). Only parameters the statement uses are passed.
 */
export function buildSearchQuery(
  input: SearchInput,
  options: BuildSearchQueryOptions,
): SearchQuery {
  const mode: SearchMode = input.mode ?? 'hybrid';
  const { limit, candidates, efSearch } = searchBudgets(input);
  if (input.tenant === '') throw new ValidationError('A search needs a tenant.');

  const values: unknown[] = [];
  const parameter = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const tenant = parameter(input.tenant);
  const conditions = filterConditions(input.filters, parameter);
  const joinDocuments = conditions.length > 0 ? 'JOIN documents d ON d.id = c.document_id' : '';
  const where = [`c.tenant = ${tenant}`, `c.kind = 'child'`, ...conditions].join(' AND ');
  const k = parameter(candidates);

  const ctes: string[] = [];
  const useVector = mode !== 'text';
  const useText = mode !== 'vector';
  const settings: string[] = [];
  if (useVector) {
    if (input.embedding === undefined) {
      throw new ValidationError(`A ${mode} search needs the query's embedding.`);
    }
    const query = `${parameter(toSql(input.embedding))}::vector`;
    const order = input.exact ? `(c.embedding <=> ${query}) + 0` : 'distance';
    if (!input.exact) {
      settings.push(`SET LOCAL hnsw.ef_search = ${efSearch}`);
      if (options.iterativeScan) settings.push('SET LOCAL hnsw.iterative_scan = relaxed_order');
    }
    ctes.push(`v AS MATERIALIZED (
    SELECT c.id, c.embedding <=> ${query} AS distance
    FROM chunks c ${joinDocuments}
    WHERE ${where}
    ORDER BY ${order}
    LIMIT ${k}
  )`);
    ctes.push(`vr AS (
    SELECT id, distance, row_number() OVER (ORDER BY distance, id) AS rank FROM v
  )`);
  }
  if (useText) {
    const tsquery = fullTextQuery(input.text, parameter(input.text));
    ctes.push(`t AS (
    SELECT c.id, row_number() OVER (ORDER BY ts_rank_cd(c.tsv, q.query) DESC, c.id) AS rank
    FROM chunks c CROSS JOIN (SELECT ${tsquery} AS query) q ${joinDocuments}
    WHERE ${where} AND c.tsv @@ q.query
    ORDER BY ts_rank_cd(c.tsv, q.query) DESC, c.id
    LIMIT ${k}
  )`);
  }
  ctes.push(fusedCte(useVector, useText));
  const text = `WITH ${ctes.join(',\n  ')}
SELECT c.id::text AS chunk_id, c.document_id::text AS document_id, d.filename, d.doc_type,
  c.section, c.page, c.text, c.metadata, p.text AS parent_text,
  f.score::float8 AS score, f.vector_rank::int AS vector_rank, f.text_rank::int AS text_rank,
  f.distance::float8 AS distance
FROM fused f
JOIN chunks c ON c.id = f.id
JOIN documents d ON d.id = c.document_id
LEFT JOIN chunks p
  ON p.document_id = c.document_id AND p.ordinal = c.parent_ordinal AND p.kind = 'parent'
ORDER BY f.score DESC, f.vector_rank NULLS LAST, f.text_rank NULLS LAST, c.id
LIMIT ${parameter(limit)}`;
  return { settings, text, values };
}
