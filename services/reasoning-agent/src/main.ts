// The reasoning agent's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, the LLM
// client, the tools, Redis, the task store and the HTTP server are built here and nowhere else.
import { config, telemetry } from './instrumentation';
import { mcpTokenEnvironment } from './config';
import { agentModel, describeUpstream, startAgentService } from '@fleet/agent-kit';
import { runMain } from '@fleet/http';
import { createLogger } from '@fleet/telemetry';
import { attachmentBodyLimit, createReasoningHandler, REASONING_OFFLINE_MESSAGE } from './agent';
import { createMcpToolbox, loadReasoningMcpServers } from './mcp';
import { createReasoningTools } from './tools';

async function main(): Promise<void> {
  const logger = createLogger({ service: 'reasoning-agent', level: config.logLevel });
  const model = agentModel(config);
  const tools = createReasoningTools({ defaultTimeZone: config.defaultTimeZone });
  const servers = await loadReasoningMcpServers(config);
  const mcpTools = createMcpToolbox({
    servers,
    maxResultChars: config.mcpMaxResultChars,
    connection: { env: mcpTokenEnvironment(servers) },
    logger,
  });
  await startAgentService({
    serviceName: 'reasoning-agent',
    config,
    logger,
    telemetry,
    createHandler: ({ store, url }) =>
      createReasoningHandler({
        llm: model.llm,
        tools,
        mcpTools,
        maxIterations: config.maxIterations,
        maxTokens: config.maxTokens,
        maxAttachments: config.maxAttachments,
        maxAttachmentBytes: config.maxAttachmentBytes,
        store,
        url,
        internalToken: true,
        logger,
      }),
    // Attached files travel base64-encoded inside the JSON-RPC body.
    bodyLimit: attachmentBodyLimit(config.maxAttachmentBytes),
    // The MCP servers (stdio ones are child processes) go when the service does.
    onShutdown: [() => mcpTools.close()],
    describe: {
      ...describeUpstream(model, config.llmModel),
      tools: tools.map((tool) => tool.name),
      mcpServers: mcpTools.servers,
      maxIterations: config.maxIterations,
      maxTokens: config.maxTokens,
    },
  });
  if (model.upstream.offline) logger.warn({}, REASONING_OFFLINE_MESSAGE);
}

runMain('reasoning-agent', main);
