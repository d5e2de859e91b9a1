/**
 * Streams that wait for a person or a model keep their client, end to end with the official
 * `openai` SDK on a running fleet (gateway, orchestrator, planner and the real reasoning agent as
 * processes): the gateway's idle limit on agent streams is set to its least
 * (GATEWAY_AGENT_IDLE_TIMEOUT_MS=16000, just above the services' 15 s keep-alive interval), and an
 * approval given after twice that, and a model call that takes as long, still end in their
 * answers — streamed, and not streamed. Before, the idle limit bounded the whole stream: an
 * approval given at 75 s of 120 ended the stream with "The stream timed out." (or a 504) while the
 * approved action still ran.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { eventsOf, gatewayApi, streamChat, type Json } from './support/gateway-api';
import { scriptedPlan } from './support/scripted-plans';
import { startFleet, type RunningFleet } from './support/start-fleet';

const IDLE_MS = 16_000;
/** A person deciding, a model thinking: twice the idle limit, and a little more. */
const WAIT_MS = 2 * IDLE_MS + 1_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('waiting for a person or a model past the idle limit', () => {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startScriptedOpenAI({
      respond: (_request, context) => {
        // The reasoning agent (it offers tools): one slow model call, then its answer.
        if (context.toolNames.length > 0) {
          return { content: 'It is 42.', latencyMs: WAIT_MS };
        }
        if (context.jsonSchema === undefined) return { content: 'Sent after approval.' };
        if (context.lastUserMessage.includes('instructions'))
          return { json: { mode: 'enhance', effectiveTask: '' } };
        return { json: scriptedPlan([{ id: 'send', agent: 'mail' }]) };
      },
    });
    const upstream = { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' };
    fleet = await startFleet({
      env: upstream,
      serviceEnv: {
        gateway: { GATEWAY_AGENT_IDLE_TIMEOUT_MS: String(IDLE_MS) },
        orchestrator: { HITL_TIMEOUT_SECONDS: '120' },
      },
      agents: [
        {
          name: 'mail',
          skills: [{ id: 'send', tags: ['mail'] }],
          reply: {
            approval: { action: 'send-mail', summary: 'Send the report to Bob', risk: 'high' },
          },
        },
      ],
      agentServices: { 'reasoning-agent': upstream },
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 120_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
  }, 60_000);

  const approve = (sessionId: string, approvalId: string) =>
    gatewayApi(fleet, `/sessions/${sessionId}/approvals/${approvalId}`, {
      method: 'POST',
      body: JSON.stringify({ decision: 'approve' }),
    });

  /** The session started with `request`, once it waits for its approval; and that approval. */
  async function waitingApproval(request: string): Promise<{ sessionId: string; id: string }> {
    for (;;) {
      const list = await gatewayApi(fleet, '/sessions?limit=100');
      const session = (list.body['data'] as Json[]).find(
        (each) => each['request'] === request && each['pendingApprovals'] === 1,
      );
      if (session !== undefined) {
        const approvals = await gatewayApi(fleet, `/sessions/${String(session['id'])}/approvals`);
        const pending = (approvals.body['data'] as Json[]).find(
          (each) => each['status'] === 'pending',
        );
        if (pending !== undefined) {
          return { sessionId: String(session['id']), id: String(pending['id']) };
        }
      }
      await sleep(200);
    }
  }

  it('answers an approval given after twice the idle limit, and a model call as long, streamed and not', async () => {
    const streamed = (async () => {
      let decided: Promise<unknown> | undefined;
      const chat = await streamChat(client, {
        message: 'Send the report to Bob (streamed)',
        onEvent: (event, seen) => {
          if (event.type !== 'approval-required' || decided !== undefined) return;
          decided = sleep(WAIT_MS).then(() => approve(seen.sessionId, String(event['approvalId'])));
        },
      });
      expect(chat.error).toBeUndefined();
      expect(eventsOf(chat.events, 'approval-end')[0]).toMatchObject({ status: 'approved' });
      expect(chat.content).toContain('Sent after approval.');
    })();

    const unstreamed = (async () => {
      const request = 'Send the report to Bob (not streamed)';
      const answer = client.chat.completions.create(
        { model: 'fleet-orchestration', messages: [{ role: 'user', content: request }] },
        { headers: { 'X-Routing-Mode': 'orchestration' } },
      );
      const approval = await waitingApproval(request);
      await sleep(WAIT_MS);
      expect((await approve(approval.sessionId, approval.id)).status).toBe(200);
      const completion = await answer;
      expect(completion.choices[0]?.message.content).toContain('Sent after approval.');
    })();

    const reasoning = (async () => {
      const stream = await client.chat.completions.create(
        {
          model: 'fleet-reasoning',
          stream: true,
          messages: [{ role: 'user', content: 'What is six times seven?' }],
        },
        { headers: { 'X-Routing-Mode': 'reasoning' } },
      );
      let content = '';
      for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
      expect(content).toContain('It is 42.');
    })();

    await Promise.all([streamed, unstreamed, reasoning]);
  }, 150_000);
});
