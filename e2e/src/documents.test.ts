/**
 * Documents end to end, on a running fleet in offline mode (gateway, orchestrator, planner and the
 * real RAG agent as their own processes; the RAG agent on an embedded PostgreSQL in a temporary
 * directory with local hashed embeddings; real Redis): upload through the gateway's multipart
 * `POST /v1/documents`, list it, ask an orchestration question the planner routes to the RAG agent
 * and get an answer citing the document, delete it — and another tenant sees none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { Citation, NodeReport } from '@fleet/a2a';
import { startFleet, type RunningFleet } from './support/start-fleet';
import { E2E_KEY } from './support/start-gateway';

/** A second tenant's key. */
const OTHER_KEY = 'sk-e2e-other-0123456789abcdef';

const FILENAME = 'falcon-handbook.md';
const FACT = 'The Falcon project launches on 14 March 2031 from the Kourou spaceport.';
const HANDBOOK = [
  '# Falcon project handbook',
  '',
  '## Schedule',
  '',
  `${FACT} The payload is the Heron-7 weather satellite, built in Toulouse.`,
  '',
  '## Team',
  '',
  'The project lead is Dr. Amara Okafor, who reports to the steering board every quarter.',
  'Budget questions go to the programme office in Darmstadt.',
  '',
].join('\n');
const QUESTION = 'When does the Falcon project launch according to our documents?';

interface DocumentBody {
  id: string;
  object: string;
  filename: string;
  docType: string;
  chunks: number;
  description: string;
  createdAt: string;
  duplicate?: boolean;
}

interface ErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: string | null };
}

interface FleetResult {
  sessionId: string;
  nodes: NodeReport[];
  citations: Citation[];
}

describe('documents on a running fleet', () => {
  let fleet: RunningFleet;

  beforeAll(async () => {
    fleet = await startFleet({
      agents: [],
      ragAgent: true,
      serviceEnv: { gateway: { GATEWAY_API_KEYS: `${E2E_KEY}:e2e,${OTHER_KEY}:other` } },
    });
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
  }, 60_000);

  function documents(key: string, init: RequestInit = {}, path = ''): Promise<Response> {
    return fetch(`${fleet.baseURL}/documents${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...init.headers },
    });
  }

  function upload(
    key: string,
    { name, bytes, type }: { name: string; bytes: string | Buffer; type: string },
  ) {
    const form = new FormData();
    form.append('purpose', 'ignored by the gateway');
    form.append('file', new Blob([bytes], { type }), name);
    return documents(key, { method: 'POST', body: form });
  }

  async function ask(key: string, question: string) {
    const client = new OpenAI({ apiKey: key, baseURL: fleet.baseURL, maxRetries: 0 });
    const completion = await client.chat.completions.create(
      { model: 'fleet-orchestration', messages: [{ role: 'user', content: question }] },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    return {
      content: completion.choices[0]?.message.content ?? '',
      fleet: (completion as unknown as { fleet: FleetResult }).fleet,
    };
  }

  let stored: DocumentBody;

  it('ingests an upload into the caller’s tenant: 201, then 200 with duplicate for the same bytes', async () => {
    const response = await upload(E2E_KEY, {
      name: FILENAME,
      bytes: HANDBOOK,
      type: 'text/markdown',
    });
    expect(response.status).toBe(201);
    stored = (await response.json()) as DocumentBody;
    expect(stored).toMatchObject({
      object: 'document',
      filename: FILENAME,
      docType: 'md',
      duplicate: false,
    });
    expect(stored.id).toMatch(/\S/);
    expect(stored.chunks).toBeGreaterThan(0);

    const again = await upload(E2E_KEY, {
      name: 'copy.md',
      bytes: HANDBOOK,
      type: 'text/markdown',
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({
      id: stored.id,
      filename: FILENAME,
      duplicate: true,
    });
  });

  it('returns the uploaded file byte for byte, only to its tenant', async () => {
    const own = await documents(E2E_KEY, {}, `/${stored.id}/content`);
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(own.headers.get('x-content-type-options')).toBe('nosniff');
    expect(own.headers.get('content-disposition')).toBe(`inline; filename="${FILENAME}"`);
    expect(Buffer.from(await own.arrayBuffer()).toString('utf8')).toBe(HANDBOOK);

    const foreign = await documents(OTHER_KEY, {}, `/${stored.id}/content`);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as ErrorEnvelope).error.type).toBe('not_found_error');
  });

  it('refuses files the RAG agent cannot read, in the OpenAI error envelope', async () => {
    const unsupported = await upload(E2E_KEY, {
      name: 'setup.exe',
      bytes: Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03]),
      type: 'application/octet-stream',
    });
    expect(unsupported.status).toBe(415);
    const unsupportedBody = (await unsupported.json()) as ErrorEnvelope;
    expect(unsupportedBody.error.type).toBe('invalid_request_error');
    expect(unsupportedBody.error.message).toContain('setup.exe');

    const damaged = await upload(E2E_KEY, {
      name: 'broken.pdf',
      bytes: Buffer.from('%PDF-1.7\n this is not really a PDF'),
      type: 'application/pdf',
    });
    expect(damaged.status).toBe(400);
    expect(((await damaged.json()) as ErrorEnvelope).error.message).toContain('broken.pdf');

    const list = (await (await documents(E2E_KEY)).json()) as { data: DocumentBody[] };
    expect(list.data.map((document) => document.filename)).toEqual([FILENAME]);
  });

  it('lists the caller’s documents only', async () => {
    const own = await documents(E2E_KEY);
    expect(own.status).toBe(200);
    const body = (await own.json()) as { object: string; data: DocumentBody[] };
    expect(body.object).toBe('list');
    expect(body.data).toEqual([
      expect.objectContaining({ id: stored.id, filename: FILENAME, docType: 'md' }),
    ]);

    const other = (await (await documents(OTHER_KEY)).json()) as { data: DocumentBody[] };
    expect(other.data).toEqual([]);
  });

  it('answers an orchestration question from the document, citing it', async () => {
    const { content, fleet: result } = await ask(E2E_KEY, QUESTION);
    expect(result.nodes).toEqual([
      expect.objectContaining({ agent: 'rag-agent', state: 'completed' }),
    ]);
    expect(content).toContain('14 March 2031');
    expect(content).toContain('[1]');
    const cited = result.citations.find((citation) =>
      `${citation.title} ${citation.snippet ?? ''}`.includes(FILENAME),
    );
    expect(cited).toMatchObject({ agent: 'rag-agent' });
  }, 60_000);

  it('keeps the document from another tenant’s answers and deletes', async () => {
    const { content } = await ask(OTHER_KEY, QUESTION);
    expect(content).not.toContain('14 March 2031');

    const foreign = await documents(OTHER_KEY, { method: 'DELETE' }, `/${stored.id}`);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as ErrorEnvelope).error.type).toBe('not_found_error');
    const still = (await (await documents(E2E_KEY)).json()) as { data: DocumentBody[] };
    expect(still.data.map((document) => document.id)).toEqual([stored.id]);
  }, 60_000);

  it('deletes the document with its chunks: gone from the list and from answers', async () => {
    const deleted = await documents(E2E_KEY, { method: 'DELETE' }, `/${stored.id}`);
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ id: stored.id, object: 'document', deleted: true });

    const list = (await (await documents(E2E_KEY)).json()) as { data: DocumentBody[] };
    expect(list.data).toEqual([]);
    const again = await documents(E2E_KEY, { method: 'DELETE' }, `/${stored.id}`);
    expect(again.status).toBe(404);

    const { content } = await ask(E2E_KEY, QUESTION);
    expect(content).not.toContain('14 March 2031');
  }, 60_000);
});
