/**
 * An MCP client (`@modelcontextprotocol/client`, the official TypeScript SDK's v2 line) against the
 * fleet's gateway at `/mcp`: list the tools, search the documents, ask the fleet.
 *
 * Run: FLEET_API_KEY=<key> pnpm --filter @fleet/examples mcp-client
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const gatewayUrl = process.env['FLEET_URL'] ?? 'http://127.0.0.1:8080';
const apiKey = process.env['FLEET_API_KEY'];
if (!apiKey) throw new Error('Set FLEET_API_KEY to a gateway key (`pnpm fleet up` prints one).');
const query = process.env['SEARCH_QUERY'] ?? 'how many days of annual leave';
const question = process.env['QUESTION'] ?? 'When is the launch?';

// The gateway is an MCP server over Streamable HTTP; the API key goes in `Authorization`.
const client = new Client(
  { name: 'fleet-example', version: '1.0.0' },
  { versionNegotiation: { mode: 'auto' } },
);
await client.connect(
  new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  }),
);

// The fleet's tools: ask, search_documents, list_documents, list_sessions, get_session.
const { tools } = await client.listTools();
console.log(`tools: ${tools.map((tool) => tool.name).join(', ')}`);

// search_documents answers the passages the RAG agent finds, best first, as structured content.
const search = await client.callTool({ name: 'search_documents', arguments: { query, limit: 3 } });
const hits = (search.structuredContent as { data: { filename?: string; text: string }[] }).data;
for (const hit of hits) console.log(`search hit: ${hit.filename ?? ''}: ${hit.text.slice(0, 120)}`);

// ask runs a question through the fleet, as POST /v1/chat/completions does.
const asked = await client.callTool({ name: 'ask', arguments: { question } });
const result = asked.structuredContent as { answer: string; state: string; session_id: string };
console.log(`ask (${result.state}, session ${result.session_id}): ${result.answer}`);

await client.close();
