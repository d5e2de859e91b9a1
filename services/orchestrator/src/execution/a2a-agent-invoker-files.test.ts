/**
 * The invoker and the files of a step's answer: every artifact's file parts are collected (an
 * agent outside the fleet names its artifacts as it likes), a file by URL is noted, never fetched,
 * and an answer larger than the run's files allow is cut off at the limit, its step failed.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { agentCardSchema, type NodeInput, type PlanNode } from '@fleet/a2a';
import { PayloadTooLargeError } from '@fleet/errors';
import { silentLogger } from '@fleet/http';
import { encodePng } from '@fleet/testing';
import { summaryOf, type AvailableAgent } from '../discovery';
import { createA2AAgentInvoker, maxEventBytesForRunFiles } from './a2a-agent-invoker';

const input: NodeInput = {
  fleet: {
    sessionId: 's-1',
    nodeId: 'draw',
    dependencyOutputs: {},
    entities: {},
    tenant: 'acme',
    memory: [],
  },
};

const node: PlanNode = { id: 'draw', agent: 'foreign', task: 'Draw it', dependsOn: [] };

const CHUNK = 'A'.repeat(64 * 1024);
/** What the huge answer would be, were it sent whole: never allocated, only promised. */
const HUGE_BYTES = 2 * 1024 * 1024 * 1024;

/** What the foreign agent answers: a picture in two artifacts not named `result`, or a huge one. */
type Mode = 'files' | 'huge';

describe('the invoker and a step’s files (a foreign agent speaking raw SSE)', () => {
  let server: Server;
  let agent: AvailableAgent;
  let mode: Mode = 'files';
  /** Bytes of the huge answer written before the invoker hung up. */
  let written = 0;
  let hungUp: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const send = (result: unknown): void => {
          response.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
        };
        const task = { id: 't-1', contextId: 'c-1' };
        send({ task: { ...task, status: { state: 'TASK_STATE_WORKING' } } });
        if (mode === 'files') {
          const png = encodePng({ width: 3, height: 3 }).toString('base64');
          send({
            artifactUpdate: {
              taskId: task.id,
              contextId: task.contextId,
              artifact: {
                artifactId: 'a-1',
                name: 'picture',
                parts: [
                  { text: 'A picture.' },
                  { raw: png, filename: 'dot.png', mediaType: 'image/png' },
                ],
              },
            },
          });
          send({
            artifactUpdate: {
              taskId: task.id,
              contextId: task.contextId,
              artifact: {
                artifactId: 'a-2',
                name: 'links',
                parts: [
                  {
                    url: 'https://example.com/big.csv',
                    filename: 'big.csv',
                    mediaType: 'text/csv',
                  },
                ],
              },
            },
          });
          send({
            statusUpdate: {
              taskId: task.id,
              contextId: task.contextId,
              status: { state: 'TASK_STATE_COMPLETED' },
            },
          });
          response.end();
          return;
        }
        // One event that would be 2 GB, written lazily, 64 KiB at a time, as fast as it is read.
        written = 0;
        let closed = false;
        hungUp = new Promise((resolve) => {
          response.on('close', () => {
            closed = true;
            resolve();
          });
        });
        response.write(
          `data: {"jsonrpc":"2.0","id":${id},"result":{"artifactUpdate":{"taskId":"t-1","contextId":"c-1","artifact":{"artifactId":"a-1","name":"picture","parts":[{"filename":"huge.png","mediaType":"image/png","raw":"`,
        );
        const pump = (): void => {
          while (!closed && written < HUGE_BYTES) {
            written += CHUNK.length;
            if (!response.write(CHUNK)) {
              response.once('drain', pump);
              return;
            }
          }
        };
        pump();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const card = agentCardSchema.parse({
      name: 'foreign',
      supportedInterfaces: [
        { url: `${url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true },
      skills: [{ id: 'draw', name: 'Draw', tags: ['chart'] }],
    });
    agent = { name: 'foreign', url, card, summary: summaryOf(card), replicas: [{ url, card }] };
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  const invoker = (maxEventBytes?: number) =>
    createA2AAgentInvoker({
      findAgent: () => Promise.resolve(agent),
      token: 'token',
      logger: silentLogger,
      ...(maxEventBytes === undefined ? {} : { maxEventBytes }),
    });

  it('collects the file parts of every artifact, a URL noted but not fetched', async () => {
    mode = 'files';
    const outcome = await invoker()({
      node,
      input,
      attempt: 1,
      signal: new AbortController().signal,
    });
    expect(outcome.status).toBe('completed');
    if (outcome.status !== 'completed') return;
    expect(outcome.summary).toBe('A picture.');
    expect(outcome.files).toEqual([
      {
        filename: 'dot.png',
        mediaType: 'image/png',
        raw: encodePng({ width: 3, height: 3 }).toString('base64'),
      },
      { filename: 'big.csv', mediaType: 'text/csv', url: 'https://example.com/big.csv' },
    ]);
  });

  it('cuts an answer larger than the run’s files allow at the limit and fails the step', async () => {
    mode = 'huge';
    const limit = maxEventBytesForRunFiles(1024 * 1024);
    const before = process.memoryUsage().rss;
    await expect(
      invoker(limit)({ node, input, attempt: 1, signal: new AbortController().signal }),
    ).rejects.toThrow(PayloadTooLargeError);
    await hungUp;
    // Stopped near the limit (plus what the sockets held), nowhere near the 2 GB promised.
    expect(written).toBeGreaterThan(limit);
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024);
  });

  it('says what limit the answer went over', async () => {
    mode = 'huge';
    await expect(
      invoker(512 * 1024)({ node, input, attempt: 1, signal: new AbortController().signal }),
    ).rejects.toThrow(/larger than the 524288 bytes an answer may have/);
    await hungUp;
  });

  it('sizes the bound to carry the run’s files in base64 and a MiB more', () => {
    expect(maxEventBytesForRunFiles(32 * 1024 * 1024)).toBe(
      Math.ceil((32 * 1024 * 1024 * 4) / 3) + 1024 * 1024,
    );
  });
});
