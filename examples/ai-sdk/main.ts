/**
 * The Vercel AI SDK (`ai` with `@ai-sdk/openai`) against the fleet's gateway: `streamText`.
 *
 * Run: FLEET_API_KEY=<key> pnpm --filter @fleet/examples ai-sdk
 */
import { createOpenAI } from '@ai-sdk/openai';
import { streamText } from 'ai';

const gatewayUrl = process.env['FLEET_URL'] ?? 'http://127.0.0.1:8080';
const apiKey = process.env['FLEET_API_KEY'];
if (!apiKey) throw new Error('Set FLEET_API_KEY to a gateway key (`pnpm fleet up` prints one).');
const question = process.env['QUESTION'] ?? 'When is the launch?';

// A provider pointed at the gateway, as at any OpenAI-compatible server.
const fleet = createOpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey });

// `.chat()` calls /v1/chat/completions; the model name picks the fleet's route.
const result = streamText({
  model: fleet.chat('fleet-orchestration'),
  prompt: question,
});
let answer = '';
for await (const piece of result.textStream) answer += piece;
console.log(`answer: ${answer}`);
