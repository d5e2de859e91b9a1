import { agentSummaryOf, type AgentAvailability, type AgentSummary } from '@fleet/a2a';
import { buildCodeCard } from '@fleet/code-agent/card';
import { buildMailCard } from '@fleet/mail-agent/card';
import { buildRagCard } from '@fleet/rag-agent/card';
import { buildReasoningCard } from '@fleet/reasoning-agent/card';
import { buildWebCard } from '@fleet/web-agent/card';
import { toolsAgentSummary } from './tools-agent-summary';

/** The reasoning agent's tools, as its service names them on its card. */
const REASONING_TOOLS = ['calculate', 'current_time', 'date_diff'];

/**
 * The fleet's agents as the planner sees them: each service's own card builder, summarised with
 * `agentSummaryOf` as the orchestrator does, so a change to a card shows in the evaluation, and
 * the tools agent with the MCP tools of `cases/mcp-tools.json` (so every case also checks that
 * tool descriptions do not take requests from the other agents). An agent named in
 * `availability` carries that availability; the others are ready (absent).
 *
 * @example
 * const agents = fleetAgents({ availability: { 'mail-agent': { state: 'unconfigured' } } });
 */
export function fleetAgents({
  availability = {},
}: { availability?: Readonly<Record<string, AgentAvailability>> } = {}): AgentSummary[] {
  const url = 'http://127.0.0.1:1';
  const cards = [
    buildRagCard({ url }),
    buildWebCard({ url }),
    buildMailCard({ url }),
    buildCodeCard({ url }),
    buildReasoningCard({ url, tools: REASONING_TOOLS }),
  ];
  const tools = toolsAgentSummary();
  return [
    ...cards.map((card) => agentSummaryOf(card, availability[card.name])),
    { ...tools, ...(availability[tools.name] ? { availability: availability[tools.name] } : {}) },
  ];
}
