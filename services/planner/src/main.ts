// The planner's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, Redis, the task
// store, the LLM client and the HTTP server are built here and nowhere else.
import { config, telemetry } from './instrumentation';
import { agentModel, describeUpstream, startAgentService } from '@fleet/agent-kit';
import { runMain } from '@fleet/http';
import { OFFLINE_HINT } from '@fleet/llm';
import { createLogger } from '@fleet/telemetry';
import { createPlannerHandler } from './agent';
import { createPlanner } from './planning';

async function main(): Promise<void> {
  const logger = createLogger({ service: 'planner', level: config.logLevel });
  const model = agentModel(config);
  const planner = createPlanner({ llm: model.llm, logger });
  await startAgentService({
    serviceName: 'planner',
    config,
    logger,
    telemetry,
    createHandler: ({ store, url }) =>
      createPlannerHandler({ planner, store, url, internalToken: true, logger }),
    describe: describeUpstream(model, config.llmModel),
  });
  if (model.upstream.offline) logger.warn({}, `${OFFLINE_HINT} The planner plans heuristically.`);
}

runMain('planner', main);
