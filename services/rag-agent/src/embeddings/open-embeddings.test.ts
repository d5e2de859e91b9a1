import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@fleet/errors';
import { embeddingSettings } from '../config';
import { openEmbeddings, probeOutage } from './open-embeddings';

describe('probeOutage', () => {
  it('names the model, the size it returned, the size the store holds, and what to do', () => {
    const outage = probeOutage({
      outcome: { ok: false, kind: 'dimensions', returned: 768 },
      model: 'text-embedding-3-small',
      expected: 1536,
      stored: { model: 'text-embedding-3-small', dimensions: 1536 },
      recheckSeconds: 60,
    });
    expect(outage.reason).toBe(
      'the embedding model text-embedding-3-small returned 768-dimensional vectors, but the RAG store holds text-embedding-3-small embeddings of 1536 dimensions',
    );
    expect(outage.remedy).toContain('set EMBEDDING_DIMENSIONS=768, point RAG_DATA_DIR');
    expect(outage.remedy).toContain('The agent checks the model again every 60 s.');
  });

  it('says why a call failed and that it is tried again', () => {
    const outage = probeOutage({
      outcome: { ok: false, kind: 'failed', message: 'connect ECONNREFUSED 127.0.0.1:11434' },
      model: 'nomic-embed-text',
      expected: 768,
      stored: undefined,
      recheckSeconds: 60,
    });
    expect(outage).toEqual({
      reason:
        'the embedding model nomic-embed-text did not answer (connect ECONNREFUSED 127.0.0.1:11434)',
      remedy:
        'The agent checks the model again every 60 s. Check OPENAI_BASE_URL, OPENAI_API_KEY and EMBEDDING_MODEL if it does not come back.',
    });
  });
});

describe('openEmbeddings', () => {
  it('uses the local embeddings offline on a new store, with vector search on', async () => {
    const gate = await openEmbeddings({
      embedding: embeddingSettings({ config: {}, offline: true, stored: undefined }),
      client: undefined,
      stored: undefined,
    });
    expect(gate).toMatchObject({ model: 'local-hashed-v1', dimensions: 384 });
    expect(gate.outage()).toBeUndefined();
    expect(gate.readinessCheck()).toBeUndefined();
    await expect(gate.embedder.embed(['a'])).resolves.toHaveLength(1);
  });

  it('refuses an upstream EMBEDDING_MODEL offline for a new store: there is nothing to serve', async () => {
    await expect(
      openEmbeddings({
        embedding: embeddingSettings({
          config: { embeddingModel: 'text-embedding-3-small' },
          offline: true,
          stored: undefined,
        }),
        client: undefined,
        stored: undefined,
      }),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});
