import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { createMessage, textPart, type Part, type Task } from '@fleet/a2a';
import { encodePng, startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { attachmentBodyLimit } from './agent';
import { MAX_ATTACHMENT_TEXT_BYTES, readAttachments } from './reasoning';
import {
  bootReasoningAgent,
  type RunningReasoningAgent,
} from './test-support/boot-reasoning-agent';

const REDIS_URL = 'redis://127.0.0.1:6379';
const png = encodePng({ width: 3, height: 3 });

function filePart(filename: string, mediaType: string, bytes: Uint8Array): Part {
  return { raw: Buffer.from(bytes).toString('base64'), filename, mediaType };
}

function text(content: string): Uint8Array {
  return new TextEncoder().encode(content);
}

function statusText(task: Task): string {
  return task.status.message?.parts.find((part) => part.text !== undefined)?.text ?? '';
}

type ContentPart =
  { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

describe('readAttachments', () => {
  const limits = { maxFiles: 8, maxTotalBytes: 1024 * 1024 };

  it('reads images, text files and names the rest', () => {
    const attachments = readAttachments(
      [
        textPart('What is on the chart?'),
        filePart('chart.png', 'image/png', png),
        filePart('../data.csv', 'text/csv; charset=utf-8', text('a,b\n1,2\n')),
        filePart('config.json', 'application/json', text('{"a":1}')),
        filePart('report.pdf', 'application/pdf', text('%PDF-1.7\n')),
        filePart('fake.png', 'image/png', text('not an image')),
      ],
      limits,
    );
    expect(attachments.map((attachment) => [attachment.kind, attachment.name])).toEqual([
      ['image', 'chart.png'],
      ['text', 'data.csv'],
      ['text', 'config.json'],
      ['other', 'report.pdf'],
      ['other', 'fake.png'],
    ]);
    expect(attachments[0]).toMatchObject({
      dataUrl: `data:image/png;base64,${png.toString('base64')}`,
      size: png.byteLength,
    });
    expect(attachments[1]).toMatchObject({ text: 'a,b\n1,2\n', cut: false, mediaType: 'text/csv' });
    expect(attachments[4]).toMatchObject({
      reason: 'fake.png says it is image/png but its content is not',
    });
  });

  it('cuts a long text file at a character boundary and says so', () => {
    const long = `${'é'.repeat(MAX_ATTACHMENT_TEXT_BYTES)}`;
    const [attachment] = readAttachments([filePart('long.txt', 'text/plain', text(long))], limits);
    if (attachment?.kind !== 'text') throw new Error('expected a text attachment');
    expect(attachment.cut).toBe(true);
    expect(Buffer.byteLength(attachment.text)).toBeLessThanOrEqual(MAX_ATTACHMENT_TEXT_BYTES);
    expect(attachment.text).toBe('é'.repeat(MAX_ATTACHMENT_TEXT_BYTES / 2));
  });

  it('only names files past the count or the total bytes', () => {
    const parts = Array.from({ length: 4 }, (_, index) =>
      filePart(`n${index}.txt`, 'text/plain', text('x'.repeat(400))),
    );
    const byCount = readAttachments(parts, { maxFiles: 2, maxTotalBytes: 1024 * 1024 });
    expect(byCount.map((attachment) => attachment.kind)).toEqual([
      'text',
      'text',
      'other',
      'other',
    ]);
    expect(byCount[2]).toMatchObject({ reason: 'past the 2 files one question may bring' });
    const byBytes = readAttachments(parts, { maxFiles: 8, maxTotalBytes: 1000 });
    expect(byBytes.map((attachment) => attachment.kind)).toEqual([
      'text',
      'text',
      'other',
      'other',
    ]);
    expect(byBytes[3]?.kind === 'other' ? byBytes[3].reason : '').toMatch(/in all/);
  });
});

describe('reasoning agent with attachments', () => {
  let redis: Redis;
  let llm: ScriptedOpenAI;
  let online: RunningReasoningAgent;
  let offline: RunningReasoningAgent;
  const prefix = `test:reasoning-attachments:${randomUUID()}`;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    llm = await startScriptedOpenAI();
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
    online = await bootReasoningAgent({
      redis,
      keyPrefix: `${prefix}:online`,
      llm: { client, model: 'reasoning-model' },
      maxAttachments: 3,
    });
    offline = await bootReasoningAgent({ redis, keyPrefix: `${prefix}:offline`, llm: undefined });
  });

  beforeEach(() => {
    llm.requests.length = 0;
  });

  afterAll(async () => {
    await online?.close();
    await offline?.close();
    await llm?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  async function send(agent: RunningReasoningAgent, parts: Part[]): Promise<Task> {
    return (await agent.client.sendMessage({ message: createMessage({ parts }) })) as Task;
  }

  it('shows the model images as image_url data URLs, text files as text, and names the rest', async () => {
    llm.enqueue({ content: 'The chart shows three bars.' });
    const csv = 'city,temp\nOslo,4\n';
    const task = await send(online, [
      textPart('What does the chart show?'),
      filePart('chart.png', 'image/png', png),
      filePart('data.csv', 'text/csv', text(csv)),
      filePart('report.pdf', 'application/pdf', text('%PDF-1.7\n')),
      filePart('extra.txt', 'text/plain', text('one too many')),
    ]);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const body = llm.requests[0]?.body as {
      messages: { role: string; content: string | ContentPart[] }[];
    };
    const question = body.messages.at(-1);
    expect(question?.role).toBe('user');
    const content = question?.content as ContentPart[];
    expect(content[0]).toEqual({ type: 'text', text: 'What does the chart show?' });
    expect(content).toContainEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${png.toString('base64')}` },
    });
    const texts = content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
    expect(texts).toContainEqual(expect.stringContaining(`data.csv (text/csv, 17 B)`));
    expect(texts).toContainEqual(expect.stringContaining(csv));
    const unread = texts.find((entry) => entry.startsWith('Attached, not readable here:'));
    expect(unread).toMatch(/report\.pdf \(application\/pdf, 9 B\): not readable here/);
    expect(unread).toMatch(/extra\.txt .*past the 3 files/);
    expect(texts.join('\n')).not.toContain('one too many');
  });

  it('sends a question without files as plain text, as before', async () => {
    llm.enqueue({ content: '4.' });
    await send(online, [textPart('What is 2 + 2?')]);
    const body = llm.requests[0]?.body as { messages: { content: unknown }[] };
    expect(body.messages.at(-1)?.content).toBe('What is 2 + 2?');
  });

  it('says offline which files it got', async () => {
    const task = await send(offline, [
      textPart('What is on the chart?'),
      filePart('chart.png', 'image/png', png),
      filePart('notes.md', 'text/markdown', text('# Notes')),
    ]);
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(statusText(task)).toMatch(/needs an upstream LLM/);
    expect(statusText(task)).toMatch(
      /It got 2 files, which it cannot read without one: chart\.png \(image\/png, \d+ B\), notes\.md \(text\/markdown, 7 B\)\./,
    );
  });

  it('takes a message with 8 MiB of files: the body limit is their base64 plus 1 MiB', async () => {
    expect(attachmentBodyLimit(8 * 1024 * 1024)).toBe(12_233_388);
    llm.enqueue({ content: 'A big file.' });
    const big = Buffer.alloc(8 * 1024 * 1024 - 1024, 'a');
    const task = await send(online, [textPart('How big?'), filePart('big.txt', 'text/plain', big)]);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const body = llm.requests[0]?.body as { messages: { content: ContentPart[] }[] };
    const shown = body.messages
      .at(-1)
      ?.content.find((part) => part.type === 'text' && part.text.includes('big.txt'));
    expect(shown?.type === 'text' ? shown.text : '').toMatch(
      /It was cut: only its first 64\.0 KiB/,
    );
  });
});
