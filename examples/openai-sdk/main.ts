/**
 * The official `openai` SDK against the fleet's gateway: a streamed chat completion, then an
 * orchestrated run whose step asks a person first (approved here through the gateway's REST route).
 *
 * Run: FLEET_API_KEY=<key> pnpm --filter @fleet/examples openai-sdk
 */
import OpenAI from 'openai';

const gatewayUrl = process.env['FLEET_URL'] ?? 'http://127.0.0.1:8080';
const apiKey = process.env['FLEET_API_KEY'];
if (!apiKey) throw new Error('Set FLEET_API_KEY to a gateway key (`pnpm fleet up` prints one).');
const question = process.env['QUESTION'] ?? 'When is the launch?';
const task = process.env['APPROVAL_TASK'] ?? 'Email the launch date to boss@example.test';

// The gateway speaks the OpenAI API under /v1: only the base URL and the key change.
const client = new OpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey });

// 1. A streamed chat completion: the answer arrives as `delta.content` pieces.
const stream = await client.chat.completions.create({
  model: 'fleet-orchestration',
  stream: true,
  messages: [{ role: 'user', content: question }],
});
let answer = '';
for await (const chunk of stream) answer += chunk.choices[0]?.delta.content ?? '';
console.log(`answer: ${answer}`);

// 2. An orchestrated run (`X-Routing-Mode: orchestration`) whose step needs approval. The response
// header `x-session-id` names the session; the stream's chunks carry fleet events in `fleet`.
const { data: run, response } = await client.chat.completions
  .create(
    { model: 'fleet-orchestration', stream: true, messages: [{ role: 'user', content: task }] },
    { headers: { 'X-Routing-Mode': 'orchestration' } },
  )
  .withResponse();
const sessionId = response.headers.get('x-session-id');
let final = '';
for await (const chunk of run) {
  final += chunk.choices[0]?.delta.content ?? '';
  const event = (chunk as { fleet?: { type: string; approvalId?: string; summary?: string } })
    .fleet;
  if (event?.type !== 'approval-required') continue;
  // The run waits (the stream stays open). The session shows what waits, too.
  const session = await fetch(`${gatewayUrl}/v1/sessions/${sessionId}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  }).then((reply) => reply.json() as Promise<{ status: string }>);
  console.log(`approval asked: ${event.summary} (session ${sessionId} is ${session.status})`);
  // A person decides: approve (or `deny`, with `instructions` saying why).
  const decided = await fetch(
    `${gatewayUrl}/v1/sessions/${sessionId}/approvals/${event.approvalId}`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    },
  );
  console.log(`approved: HTTP ${decided.status}`);
}
// The same stream goes on after the decision and ends with the run's answer.
console.log(`final answer: ${final}`);
