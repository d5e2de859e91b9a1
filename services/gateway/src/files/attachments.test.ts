import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import OpenAI from 'openai';
import {
  dataPart,
  RESULT_ARTIFACT_NAME,
  textPart,
  type DocumentInfo,
  type Part,
  type RunFile,
  type RunResult,
} from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import { NotFoundError } from '@fleet/errors';
import { createMemoryRunFileStore, type MemoryRunFileStore } from '@fleet/testing';
import type { DocumentsClient } from '../documents/documents-client';
import { buildGateway, OTHER_KEY, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import {
  startOrchestratorDouble,
  type DoubleCall,
  type OrchestratorDouble,
} from '../test-support/orchestrator-double';
import { serve, type Served } from '../test-support/serve';

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('pixels'),
]);
const PNG_URL = `data:image/png;base64,${PNG.toString('base64')}`;
const EXPIRES = '2099-01-01T00:00:00.000Z';
const MAX_BYTES = 64;

/** The file parts of a message the double received. */
function fileParts(call: DoubleCall): Part[] {
  return call.parts.filter((part) => part.raw !== undefined);
}

/** A documents client holding one CSV document of tenant `acme`. */
function documentsWithOne(): DocumentsClient {
  const document: DocumentInfo = {
    id: 'doc-1',
    filename: 'sales.csv',
    docType: 'csv',
    chunks: 1,
    description: 'sales',
    createdAt: '2026-01-01T00:00:00.000Z',
  };
  return {
    ingest: () => Promise.reject(new Error('not used')),
    list: () => Promise.resolve([document]),
    remove: () => Promise.resolve(false),
    search: () => Promise.reject(new Error('not used')),
    content: ({ tenant, id }) =>
      tenant === 'acme' && id === 'doc-1'
        ? Promise.resolve({
            document,
            bytes: Buffer.from('month,total\njan,3\n'),
            mediaType: 'text/csv',
            filename: 'sales.csv',
          })
        : Promise.reject(new NotFoundError(`No document ${id}.`)),
  };
}

describe('attachments on the agent routes', () => {
  let orchestrator: OrchestratorDouble;
  let reasoning: OrchestratorDouble;
  let gateway: TestGateway;
  let served: Served;
  let store: MemoryRunFileStore;
  let runFile: RunFile;
  let madeFile: RunFile;

  beforeAll(async () => {
    store = createMemoryRunFileStore();
    /** Keeps `PNG` as `name`, an acme step's file from `origin`. */
    const keepPng = async (
      name: string,
      origin: { sessionId: string; nodeId?: string; agent?: string },
    ) => {
      const [file] = (await store.put({
        tenant: 'acme',
        ...origin,
        source: 'step',
        expiresAt: EXPIRES,
        files: [{ name, mediaType: 'image/png', bytes: PNG }],
      })) as [RunFile];
      return file;
    };
    runFile = await keepPng('earlier.png', { sessionId: 'sess-old' });
    madeFile = await keepPng('chart.png', { sessionId: 'sess-a', nodeId: 'n1', agent: 'code' });
    const result: RunResult = {
      sessionId: 'sess-a',
      plan: {
        nodes: [{ id: 'n1', agent: 'code', task: 'chart', dependsOn: [] }],
        rationale: 'one step',
        confidence: 0.9,
      },
      nodes: [{ id: 'n1', agent: 'code', state: 'completed', attempts: 1 }],
      citations: [],
      failedNodes: [],
      composer: 'llm',
      files: [madeFile],
    };
    const answer = `Here is the chart: ![chart.png](/v1/files/${madeFile.id}/content)`;
    orchestrator = await startOrchestratorDouble(async function* execute() {
      await Promise.resolve();
      const event: AgentEvent = {
        type: 'artifact',
        artifact: {
          artifactId: 'result-1',
          name: RESULT_ARTIFACT_NAME,
          parts: [textPart(answer), dataPart(result)],
        },
        append: false,
        lastChunk: true,
      };
      yield event;
      yield { type: 'status', state: 'TASK_STATE_COMPLETED', message: 'Done.' };
    });
    reasoning = await startOrchestratorDouble(async function* execute() {
      await Promise.resolve();
      yield {
        type: 'artifact',
        artifact: {
          artifactId: 'r',
          name: RESULT_ARTIFACT_NAME,
          parts: [textPart('Seen.'), dataPart({ stopReason: 'answered' })],
        },
        append: false,
        lastChunk: true,
      };
      yield { type: 'status', state: 'TASK_STATE_COMPLETED', message: 'Answered.' };
    });
    gateway = await buildGateway({
      overrides: {
        orchestratorClient: orchestrator.client,
        reasoningAgent: { client: reasoning.client, url: 'http://reasoning.test' },
        files: store,
        documents: documentsWithOne(),
        attachmentLimits: { maxAttachments: 3, maxAttachmentBytes: MAX_BYTES },
      },
    });
    served = await serve(gateway.app);
  });

  afterAll(async () => {
    await served.close();
    await gateway.close();
    await orchestrator.close();
    await reasoning.close();
  });

  beforeEach(() => {
    orchestrator.calls.length = 0;
    reasoning.calls.length = 0;
  });

  function chat(content: unknown, { key = TEST_KEY, mode = 'orchestration' } = {}) {
    return request(gateway.app)
      .post('/v1/chat/completions')
      .auth(key, { type: 'bearer' })
      .set('x-routing-mode', mode)
      .send({ model: 'fleet', messages: [{ role: 'user', content }] });
  }

  function responses(content: unknown) {
    return request(gateway.app)
      .post('/v1/responses')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'orchestration')
      .send({ model: 'fleet', input: [{ role: 'user', content }] });
  }

  it('sends a data URL image to the orchestrator as a file part after the text and fleet parts', async () => {
    const res = await chat([
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: PNG_URL } },
    ]);
    expect(res.status).toBe(200);
    const [call] = orchestrator.calls;
    expect(call?.text).toBe('What is in this picture?');
    expect(call?.parts.map((part) => Object.keys(part).find((key) => key !== 'mediaType'))).toEqual(
      ['text', 'data', 'raw'],
    );
    expect(fileParts(call as DoubleCall)).toEqual([
      { raw: PNG.toString('base64'), filename: 'attachment-1.png', mediaType: 'image/png' },
    ]);
  });

  it('sends file parts by data, by run file id and by document id, names cleaned', async () => {
    const res = await chat([
      { type: 'text', text: 'Compare these' },
      {
        type: 'file',
        file: {
          file_data: `data:text/plain;base64,${Buffer.from('hello').toString('base64')}`,
          filename: '../../etc/notes.txt',
        },
      },
      { type: 'file', file: { file_id: runFile.id } },
      { type: 'file', file: { file_id: 'doc-1' } },
    ]);
    expect(res.status).toBe(200);
    expect(fileParts(orchestrator.calls[0] as DoubleCall)).toEqual([
      {
        raw: Buffer.from('hello').toString('base64'),
        filename: 'notes.txt',
        mediaType: 'text/plain',
      },
      { raw: PNG.toString('base64'), filename: 'earlier.png', mediaType: 'image/png' },
      {
        raw: Buffer.from('month,total\njan,3\n').toString('base64'),
        filename: 'sales.csv',
        mediaType: 'text/csv',
      },
    ]);
  });

  it('sends attachments to the reasoning agent too', async () => {
    const res = await chat(
      [
        { type: 'text', text: 'Think about this' },
        { type: 'image_url', image_url: { url: PNG_URL } },
      ],
      { mode: 'reasoning' },
    );
    expect(res.status).toBe(200);
    expect(fileParts(reasoning.calls[0] as DoubleCall)).toHaveLength(1);
  });

  it.each([
    {
      what: 'an http URL',
      part: { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
      status: 400,
      param: 'messages[0].content[1].image_url.url',
      message: /does not fetch URLs/,
    },
    {
      what: 'a malformed data URL',
      part: { type: 'image_url', image_url: { url: 'data:image/png,notbase64' } },
      status: 400,
      param: 'messages[0].content[1].image_url.url',
      message: /base64/,
    },
    {
      what: 'broken base64',
      part: { type: 'file', file: { file_data: 'data:text/plain;base64,@@@@', filename: 'a.txt' } },
      status: 400,
      param: 'messages[0].content[1].file.file_data',
      message: /not valid base64/,
    },
    {
      what: 'a file over GATEWAY_MAX_ATTACHMENT_BYTES',
      part: {
        type: 'file',
        file: { file_data: Buffer.alloc(MAX_BYTES + 1, 65).toString('base64'), filename: 'a.txt' },
      },
      status: 413,
      param: 'messages[0].content[1].file.file_data',
      message: /GATEWAY_MAX_ATTACHMENT_BYTES/,
    },
    {
      what: 'an unknown file id',
      part: { type: 'file', file: { file_id: 'file-0123456789abcdef0123456789abcdef' } },
      status: 404,
      param: 'messages[0].content[1].file.file_id',
      message: /no file/,
    },
    {
      what: 'a type the fleet does not keep',
      part: {
        type: 'file',
        file: { file_data: Buffer.from('MZ').toString('base64'), filename: 'tool.exe' },
      },
      status: 400,
      param: 'messages[0].content[1].file.file_data',
      message: /tool\.exe/,
    },
    {
      what: 'a PNG that is not one',
      part: {
        type: 'image_url',
        image_url: { url: `data:image/png;base64,${Buffer.from('GIF89a').toString('base64')}` },
      },
      status: 400,
      param: 'messages[0].content[1].image_url.url',
      message: /not/,
    },
    {
      what: 'a file part with neither data nor id',
      part: { type: 'file', file: { filename: 'a.txt' } },
      status: 400,
      param: 'messages[0].content[1].file',
      message: /exactly one/,
    },
  ])('refuses $what, naming the part', async ({ part, status, param, message }) => {
    const res = await chat([{ type: 'text', text: 'Look' }, part]);
    expect(res.status).toBe(status);
    expect(res.body.error.param).toBe(param);
    expect(res.body.error.message).toMatch(message);
    expect(orchestrator.calls).toHaveLength(0);
  });

  it("answers 404 for another tenant's run file", async () => {
    const res = await chat(
      [
        { type: 'text', text: 'Look' },
        { type: 'file', file: { file_id: runFile.id } },
      ],
      { key: OTHER_KEY },
    );
    expect(res.status).toBe(404);
    expect(res.body.error.param).toBe('messages[0].content[1].file.file_id');
  });

  it('refuses more than GATEWAY_MAX_ATTACHMENTS attachments', async () => {
    const image = { type: 'image_url', image_url: { url: PNG_URL } };
    const res = await chat([{ type: 'text', text: 'Look' }, image, image, image, image]);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/GATEWAY_MAX_ATTACHMENTS/);
  });

  it('leaves passthrough requests alone: URLs go upstream unchanged', async () => {
    const res = await chat(
      [
        { type: 'text', text: 'Look' },
        { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
      ],
      { mode: 'passthrough' },
    );
    expect(res.status).toBe(200);
    expect(orchestrator.calls).toHaveLength(0);
  });

  it('takes Responses input_image and input_file parts', async () => {
    const threeAttachments = [
      { type: 'input_text', text: 'Compare' },
      { type: 'input_image', image_url: PNG_URL },
      { type: 'input_image', file_id: runFile.id },
      {
        type: 'input_file',
        filename: 'a.json',
        file_data: `data:application/json;base64,${Buffer.from('{}').toString('base64')}`,
      },
    ];
    const res = await responses([...threeAttachments, { type: 'input_file', file_id: 'doc-1' }]);
    // Four attachments, the limit here three: the count is checked first.
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/GATEWAY_MAX_ATTACHMENTS/);
    const ok = await responses(threeAttachments);
    expect(ok.status).toBe(200);
    expect(
      fileParts(orchestrator.calls.at(-1) as DoubleCall).map((part) => [
        part.filename,
        part.mediaType,
      ]),
    ).toEqual([
      ['attachment-1.png', 'image/png'],
      ['earlier.png', 'image/png'],
      ['a.json', 'application/json'],
    ]);
  });

  it('refuses Responses file_url and http image URLs with 400', async () => {
    const byUrl = await responses([
      { type: 'input_text', text: 'Read' },
      { type: 'input_file', file_url: 'https://example.com/a.pdf' },
    ]);
    expect(byUrl.status).toBe(400);
    expect(byUrl.body.error.param).toBe('input[0].content[1].file_url');
    const image = await responses([
      { type: 'input_text', text: 'Read' },
      { type: 'input_image', image_url: 'http://example.com/a.png' },
    ]);
    expect(image.status).toBe(400);
    expect(image.body.error.param).toBe('input[0].content[1].image_url');
  });

  it('annotates the files the answer links and lists them in fleet (Responses, through the SDK)', async () => {
    const openai = new OpenAI({
      apiKey: TEST_KEY,
      baseURL: `${served.url}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'X-Routing-Mode': 'orchestration' },
    });
    const response = await openai.responses.create({ model: 'fleet', input: 'Chart it' });
    const message = response.output.find((item) => item.type === 'message');
    const text = message?.type === 'message' ? message.content[0] : undefined;
    const link = `![chart.png](/v1/files/${madeFile.id}/content)`;
    expect(text?.type === 'output_text' ? text.annotations : undefined).toEqual([
      {
        type: 'container_file_citation',
        container_id: 'sess-a',
        file_id: madeFile.id,
        filename: 'chart.png',
        start_index: response.output_text.indexOf(link),
        end_index: response.output_text.indexOf(link) + link.length,
      },
    ]);
    expect((response as unknown as { fleet: { files: RunFile[] } }).fleet.files).toEqual([
      madeFile,
    ]);
  });

  it('annotates the files in a streamed Responses answer too', async () => {
    const res = await request(gateway.app)
      .post('/v1/responses')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'orchestration')
      .send({ model: 'fleet', input: 'Chart it', stream: true });
    expect(res.status).toBe(200);
    const done = res.text
      .split('\n\n')
      .find((frame) => frame.includes('event: response.completed'));
    const completed = JSON.parse(/^data: (.*)$/m.exec(done ?? '')?.[1] ?? 'null') as {
      response: { output: { type: string; content?: { annotations: { file_id: string }[] }[] }[] };
    };
    const message = completed.response.output.find((item) => item.type === 'message');
    expect(message?.content?.[0]?.annotations.map((annotation) => annotation.file_id)).toEqual([
      madeFile.id,
    ]);
  });
});
