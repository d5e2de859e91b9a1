import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { textPart } from '@fleet/a2a';
import { answerRun } from '../orchestration';
import {
  progressStatus,
  startOrchestratorDouble,
  type OrchestratorDouble,
} from '../test-support/orchestrator-double';
import { responsesChannel } from './responses-channel';

describe('responsesChannel', () => {
  let orchestrator: OrchestratorDouble;
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    orchestrator = await startOrchestratorDouble(async function* execute() {
      await Promise.resolve();
      yield progressStatus(
        'Waiting for approval: send a mail.',
        {
          type: 'approval-required',
          approvalId: 'ap-1',
          kind: 'node',
          nodeId: 'n1',
          agent: 'mail',
          action: 'send-mail',
          summary: 'Send a mail',
          preview: 'To: bob@example.com',
          risk: 'high',
          expiresAt: '2099-01-01T00:00:00.000Z',
        },
        'sess-k',
      );
      // A person takes a while to decide: the stream is quiet meanwhile.
      await delay(200);
      yield {
        type: 'artifact',
        artifact: { name: 'result', parts: [textPart('Sent.')] },
      };
    });
    server = http.createServer((_req, res) => {
      void answerRun({
        events: (signal) =>
          orchestrator.client.sendStreamingMessage(
            { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [textPart('mail Bob')] } },
            { signal },
          ),
        orchestratorUrl: 'http://orchestrator.test',
        model: 'fleet-orchestration',
        stream: true,
        res,
        responseHeaders: { 'x-routing-mode': 'orchestration' },
        span: undefined,
        keepAliveMs: 40,
        channel: responsesChannel('fleet-orchestration'),
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await orchestrator.close();
  });

  it('keeps the connection alive while the run waits for a person, then completes', async () => {
    const response = await fetch(url);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-session-id')).toBe('sess-k');
    const body = await response.text();
    const approval = body.indexOf('"type":"approval-required"');
    const answer = body.indexOf('event: response.output_text.delta');
    const keepAlive = body.indexOf(': keep-alive', approval);
    expect(approval).toBeGreaterThan(-1);
    expect(keepAlive).toBeGreaterThan(approval);
    expect(keepAlive).toBeLessThan(answer);
    expect(body.trimEnd().split('\n\n').at(-1)).toMatch(/^event: response\.completed\n/);
  });
});
