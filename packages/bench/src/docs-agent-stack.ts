import path from 'node:path';
import { startProcess, startService, type RunningService } from '@fleet/testing';

/** What {@link startDocsAgentStack} starts. */
export interface DocsAgentStack {
  /** The scripted document agent's base URL (what AGENT_URLS lists). */
  agentUrl: string;
  planner: RunningService;
  orchestrator: RunningService;
}

/** Options for {@link startDocsAgentStack}. */
export interface DocsAgentStackOptions {
  root: string;
  /** The internal token every process shares. */
  token: string;
  /** How long the scripted agent takes per task. */
  agentLatencyMs: number;
  /** Variables for the planner and the orchestrator (the token, log level, …). */
  env: Record<string, string>;
  /** More variables for the orchestrator alone (the upstream, scheduling limits, …). */
  orchestratorEnv?: Record<string, string>;
  /** Example requests the agent's card lists (`|`-separated), for the planner's heuristic. */
  examples?: string;
  /** Each started process's stop is pushed here, in start order. */
  stoppers: (() => Promise<unknown>)[];
}

/**
 * The orchestration path the benchmarks measure behind their gateway: a scripted document agent
 * (`scripted-agent.js`, its own process), the planner (its heuristic: no model writes plans here)
 * and the orchestrator with that agent, memory off.
 */
export async function startDocsAgentStack({
  root,
  token,
  agentLatencyMs,
  env,
  orchestratorEnv = {},
  examples,
  stoppers,
}: DocsAgentStackOptions): Promise<DocsAgentStack> {
  const agent = await startProcess({
    name: 'docs-agent',
    args: [
      path.join(root, 'packages/testing/dist/bin/scripted-agent.js'),
      '--name',
      'docs-agent',
      '--description',
      'Searches the company documents and policies.',
      '--tags',
      'documents,policy,search',
      ...(examples === undefined ? [] : ['--examples', examples]),
      '--latency-ms',
      String(agentLatencyMs),
      '--token',
      token,
    ],
    readyLine: /READY (\S+)/,
  });
  stoppers.push(() => agent.stop());
  const planner = await startService({ root, name: 'planner', env });
  stoppers.push(() => planner.stop());
  const agentUrl = agent.match?.[1] ?? '';
  const orchestrator = await startService({
    root,
    name: 'orchestrator',
    env: {
      ...env,
      ...orchestratorEnv,
      PLANNER_URL: planner.url,
      AGENT_URLS: agentUrl,
      MEMORY_ENABLED: 'false',
    },
  });
  stoppers.push(() => orchestrator.stop());
  return { agentUrl, planner, orchestrator };
}
