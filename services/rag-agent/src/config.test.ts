import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@fleet/errors';
import { publicUrlOf } from '@fleet/agent-kit';
import { embeddingSettings, ingestLimits, loadRagAgentConfig } from './config';
import { DEFAULT_INGEST_LIMITS } from './ingestion';

const TOKEN = 'rag-agent-config-token-0000';

describe('loadRagAgentConfig', () => {
  it('applies the defaults', () => {
    const config = loadRagAgentConfig({ FLEET_INTERNAL_TOKEN: TOKEN });
    expect(config).toMatchObject({
      port: 8083,
      host: '127.0.0.1',
      dataDir: '.fleet/rag-pglite',
      topK: 8,
      efSearch: 120,
      maxUploadBytes: 25 * 1024 * 1024,
    });
    expect(ingestLimits(config)).toEqual(DEFAULT_INGEST_LIMITS);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.rerank).toBeUndefined();
    expect(publicUrlOf({ ...config, host: '0.0.0.0' })).toBe('http://127.0.0.1:8083');
  });

  it('reads every variable', () => {
    const config = loadRagAgentConfig({
      FLEET_INTERNAL_TOKEN: TOKEN,
      RAG_AGENT_PORT: '9000',
      RAG_AGENT_PUBLIC_URL: 'http://rag-agent:9000/',
      DATABASE_URL: 'postgres://fleet:fleet@db:5432/fleet',
      RAG_DATA_DIR: '/var/lib/rag',
      EMBEDDING_MODEL: 'nomic-embed-text',
      EMBEDDING_DIMENSIONS: '768',
      RAG_RERANK: 'false',
      RAG_TOP_K: '5',
      RAG_HNSW_EF_SEARCH: '800',
      RAG_MAX_UPLOAD_BYTES: '2mb',
      RAG_MAX_ROWS: '100',
      RAG_MAX_COLUMNS: '40',
      RAG_MAX_CELLS: '4000',
      RAG_MAX_PDF_PAGES: '50',
      RAG_MAX_TEXT_CHARS: '200000',
      RAG_MAX_CHUNKS: '300',
      RAG_MAX_UNPACKED_BYTES: '20mb',
      RAG_MAX_UNPACKED_ENTRY_BYTES: '10mb',
      RAG_MAX_ARCHIVE_ENTRIES: '500',
      RAG_MAX_COMPRESSION_RATIO: '50',
      RAG_MAX_NESTING_DEPTH: '40',
      RAG_PARSE_WORKERS: '4',
      RAG_PARSE_TIMEOUT_MS: '20000',
      RAG_PARSE_MEMORY_MB: '768',
      RAG_PARSE_QUEUE_LENGTH: '10',
      RAG_PARSE_TENANT_CONCURRENCY: '2',
    });
    expect(ingestLimits(config)).toEqual({
      maxRows: 100,
      maxColumns: 40,
      maxCells: 4000,
      maxPdfPages: 50,
      maxTextChars: 200_000,
      maxChunks: 300,
      maxUnpackedBytes: 20 * 1024 * 1024,
      maxEntryBytes: 10 * 1024 * 1024,
      maxArchiveEntries: 500,
      maxCompressionRatio: 50,
      maxNestingDepth: 40,
    });
    expect(config).toMatchObject({
      port: 9000,
      databaseUrl: 'postgres://fleet:fleet@db:5432/fleet',
      dataDir: '/var/lib/rag',
      embeddingModel: 'nomic-embed-text',
      embeddingDimensions: 768,
      rerank: false,
      topK: 5,
      efSearch: 800,
      maxUploadBytes: 2 * 1024 * 1024,
      parseWorkers: 4,
      parseTimeoutMs: 20_000,
      parseMemoryMb: 768,
      parseQueueLength: 10,
      parseTenantConcurrency: 2,
    });
    expect(publicUrlOf(config)).toBe('http://rag-agent:9000');
  });

  it('fails naming every bad variable', () => {
    expect(() =>
      loadRagAgentConfig({
        DATABASE_URL: 'mysql://x',
        RAG_TOP_K: '0',
        RAG_MAX_UPLOAD_BYTES: 'lots',
        RAG_MAX_ROWS: '0',
        RAG_MAX_UNPACKED_BYTES: '0',
      }),
    ).toThrow(ConfigError);
    try {
      loadRagAgentConfig({
        DATABASE_URL: 'mysql://x',
        RAG_TOP_K: '0',
        RAG_MAX_UPLOAD_BYTES: 'lots',
        RAG_MAX_ROWS: '0',
        RAG_MAX_UNPACKED_BYTES: '0',
      });
    } catch (error) {
      const message = (error as Error).message;
      for (const name of [
        'FLEET_INTERNAL_TOKEN',
        'DATABASE_URL',
        'RAG_TOP_K',
        'RAG_MAX_UPLOAD_BYTES',
        'RAG_MAX_ROWS',
        'RAG_MAX_UNPACKED_BYTES',
      ]) {
        expect(message).toContain(name);
      }
    }
  });
});

describe('embeddingSettings', () => {
  it('uses local hashed embeddings offline and text-embedding-3-small with an upstream', () => {
    expect(embeddingSettings({ config: {}, offline: true })).toEqual({
      model: 'local-hashed-v1',
      dimensions: 384,
      local: true,
      keptStored: false,
    });
    expect(embeddingSettings({ config: {}, offline: false })).toEqual({
      model: 'text-embedding-3-small',
      dimensions: undefined,
      local: false,
      keptStored: false,
    });
  });

  it('honours EMBEDDING_MODEL and EMBEDDING_DIMENSIONS, local embeddings online included', () => {
    expect(
      embeddingSettings({
        config: { embeddingModel: 'local-hashed-v1', embeddingDimensions: 256 },
        offline: false,
      }),
    ).toEqual({ model: 'local-hashed-v1', dimensions: 256, local: true, keptStored: false });
    expect(
      embeddingSettings({ config: { embeddingModel: 'nomic-embed-text' }, offline: true }),
    ).toEqual({
      model: 'nomic-embed-text',
      dimensions: undefined,
      local: false,
      keptStored: false,
    });
  });

  it('keeps the model an existing store was built with while EMBEDDING_MODEL is unset', () => {
    const offlineStore = { model: 'local-hashed-v1', dimensions: 384 };
    // A store filled offline keeps its local embeddings once an upstream is configured.
    expect(embeddingSettings({ config: {}, offline: false, stored: offlineStore })).toEqual({
      model: 'local-hashed-v1',
      dimensions: 384,
      local: true,
      keptStored: true,
    });
    expect(embeddingSettings({ config: {}, offline: true, stored: offlineStore })).toEqual({
      model: 'local-hashed-v1',
      dimensions: 384,
      local: true,
      keptStored: false,
    });
    // An explicit EMBEDDING_MODEL wins (migrate then refuses a mismatch with a clear message).
    expect(
      embeddingSettings({
        config: { embeddingModel: 'text-embedding-3-small' },
        offline: false,
        stored: offlineStore,
      }),
    ).toMatchObject({ model: 'text-embedding-3-small', keptStored: false });
  });
});
