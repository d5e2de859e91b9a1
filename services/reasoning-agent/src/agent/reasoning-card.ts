import type { AgentCard } from '@fleet/a2a';
import { buildAgentCard } from '@fleet/a2a/server';

/** The reasoning agent's version, as its Agent Card states it. */
export const REASONING_AGENT_VERSION = '0.1.0';

/** The skill on the reasoning agent's card. */
export const REASONING_SKILL = 'reasoning';

/** Options for {@link buildReasoningCard}. */
export interface BuildReasoningCardOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8087`. */
  url: string;
  /** Declares the fleet's bearer scheme; set when `/a2a` needs FLEET_INTERNAL_TOKEN. @default true */
  internalToken?: boolean;
  /** The tool names, for the description. */
  tools: readonly string[];
  /** The names of the MCP servers whose tools it may call, for the description. @default [] */
  mcpServers?: readonly string[];
}

/**
 * The reasoning agent's Agent Card: name `reasoning-agent`, streaming, one skill `reasoning` with
 * the tags and examples the planner matches on, and the internal-token security scheme.
 *
 * @example
 * const card = buildReasoningCard({ url: 'http://127.0.0.1:8087', tools: ['calculate', 'current_time'] });
 */
export function buildReasoningCard({
  url,
  internalToken = true,
  tools,
  mcpServers = [],
}: BuildReasoningCardOptions): AgentCard {
  const mcp =
    mcpServers.length === 0
      ? ''
      : ` and the tools that need no approval of the MCP servers ${mcpServers.join(', ')}`;
  return buildAgentCard({
    name: 'reasoning-agent',
    description: `Thinks through a question step by step in a single loop, calling tools (${tools.join(', ')}${mcp}) and answering within an iteration and token budget; every step streams as a status update. The fleet's single-loop baseline; it reads no documents, web pages or mail.`,
    version: REASONING_AGENT_VERSION,
    url,
    streaming: true,
    internalToken,
    skills: [
      {
        id: REASONING_SKILL,
        name: 'Step-by-step reasoning',
        description: `Answers questions that need arithmetic, dates, times or multi-step logic, showing each step (Thinking / Calling a tool / Result). Send a text part with the question, optionally with the data part { reasoning: { history: [{ role, content }] } } (the conversation before it) or the fleet node input { fleet: { … } }. Answers with the artifact "result": a text part (the answer) and a data part { steps, toolCalls, iterations, stopReason, usage, budget, model }.`,
        tags: [
          'reasoning',
          'math',
          'calculation',
          'arithmetic',
          'date',
          'time',
          'logic',
          'step-by-step',
        ],
        examples: [
          'what is 17% of 2,340 plus the square root of 1764?',
          'how many days are left until 31 December, and what weekday is it today in Tokyo?',
          'if a train leaves at 14:35 and the trip takes 3 h 50 min, when does it arrive?',
        ],
        // Attached files: images reach the model as images, text files as text.
        inputModes: [
          'text/plain',
          'application/json',
          'image/png',
          'image/jpeg',
          'image/gif',
          'image/webp',
          'text/csv',
          'text/markdown',
        ],
        outputModes: ['text/plain', 'application/json'],
      },
    ],
  });
}
