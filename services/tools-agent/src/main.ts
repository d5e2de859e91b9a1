// The tools agent's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, the
// LLM client, the MCP connections, Redis, the task store and the HTTP server are built here.
import { config, telemetry } from './instrumentation';
import { agentModel, describeUpstream, startAgentService } from '@fleet/agent-kit';
import { runMain } from '@fleet/http';
import { OFFLINE_HINT } from '@fleet/llm';
import { createLogger } from '@fleet/telemetry';
import { createToolsHandler, toolsAvailability } from './agent';
import { loadToolServers } from './config';
import { createToolCatalog } from './servers';

async function main(): Promise<void> {
  const logger = createLogger({ service: 'tools-agent', level: config.logLevel });
  const model = agentModel(config);
  const { servers, env, source } = await loadToolServers(config);
  // One connection per server; every one is closed on shutdown, so no server process outlives us.
  const catalog = createToolCatalog({
    servers,
    connectionOptions: {
      env,
      timeoutMs: config.callTimeoutMs,
      maxResultBytes: config.maxResultBytes,
      maxTools: config.maxToolsPerServer,
      clientInfo: { name: 'a2a-fleet-tools-agent', version: '0.1.0' },
    },
    logger,
  });
  await catalog.start();
  // Said on the card and by /readyz; the kit logs it once when it is not `ready`.
  const availability = toolsAvailability(catalog.servers());
  await startAgentService({
    serviceName: 'tools-agent',
    config,
    logger,
    telemetry,
    availability,
    createHandler: ({ store, url }) =>
      createToolsHandler({
        catalog,
        llm: model.llm,
        maxRounds: config.maxRounds,
        approvalTtlMs: config.approvalTtlSeconds * 1000,
        store,
        url,
        internalToken: true,
        logger,
        availability,
      }),
    onShutdown: [() => catalog.close()],
    describe: {
      ...describeUpstream(model, config.llmModel),
      servers: source,
      mcpServers: catalog.servers().map((server) => ({
        name: server.name,
        status: server.status,
        tools: server.tools.length,
      })),
    },
  });
  if (model.upstream.offline) {
    logger.warn(
      {},
      `${OFFLINE_HINT} The tools agent calls only a tool the step names ("<server>/<tool>") with a JSON object of arguments.`,
    );
  }
}

runMain('tools-agent', main);
