/**
 * LangChain JS (`@langchain/openai`'s `ChatOpenAI`) against the fleet's gateway, streaming.
 *
 * Run: FLEET_API_KEY=<key> pnpm --filter @fleet/examples langchain
 */
import { ChatOpenAI } from '@langchain/openai';

const gatewayUrl = process.env['FLEET_URL'] ?? 'http://127.0.0.1:8080';
const apiKey = process.env['FLEET_API_KEY'];
if (!apiKey) throw new Error('Set FLEET_API_KEY to a gateway key (`pnpm fleet up` prints one).');
const question = process.env['QUESTION'] ?? 'When is the launch?';

// `configuration` is handed to the openai SDK underneath: the gateway's /v1 is the base URL.
const model = new ChatOpenAI({
  model: 'fleet-orchestration',
  apiKey,
  configuration: { baseURL: `${gatewayUrl}/v1` },
});

let answer = '';
for await (const chunk of await model.stream(question)) answer += chunk.text;
console.log(`answer: ${answer}`);
