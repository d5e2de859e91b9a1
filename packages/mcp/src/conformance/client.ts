/**
 * The client program the MCP conformance suite drives (`conformance client --command …`): it is
 * given the scenario's server URL as its last argument and the scenario's name in
 * `MCP_CONFORMANCE_SCENARIO`, and does what the scenario expects of a client, through
 * `createMcpConnection`: connect, list the tools, and call the scenario's tool. Elicitations are
 * accepted with no fields, so the schema's defaults are what is sent. Exits 1 on any failure.
 */
import { createMcpConnection } from '../index';

/** The tool each scenario expects a call of, with its arguments. */
const CALLS: Record<string, { tool: string; arguments: Record<string, unknown> }> = {
  tools_call: { tool: 'add_numbers', arguments: { a: 2, b: 3 } },
  'elicitation-sep1034-client-defaults': {
    tool: 'test_client_elicitation_defaults',
    arguments: {},
  },
  'sse-retry': { tool: 'test_reconnection', arguments: {} },
};

async function main(): Promise<void> {
  const url = process.argv.at(-1) ?? '';
  const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? '';
  const connection = createMcpConnection(
    'conformance',
    { url },
    {
      clientInfo: { name: 'a2a-fleet-conformance', version: '0.1.0' },
      timeoutMs: 15_000,
      connectTimeoutMs: 10_000,
      onElicitation: () => Promise.resolve({ action: 'accept', content: {} }),
    },
  );
  try {
    const { tools } = await connection.listTools();
    process.stdout.write(`tools: ${tools.map((tool) => tool.name).join(', ')}\n`);
    const call = CALLS[scenario];
    if (call) {
      const result = await connection.callTool(call.tool, call.arguments);
      process.stdout.write(`${JSON.stringify(result.content)}\n`);
    }
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`,
  );
  process.exitCode = 1;
});
