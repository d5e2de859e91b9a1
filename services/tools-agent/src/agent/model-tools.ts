import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';
import { streamChat, type StreamChatResult } from '@fleet/llm';
import { SpanKind, withSpan, type WithSpanOptions } from '@fleet/telemetry';
import type OpenAI from 'openai';
import type { CatalogTool } from '../servers';
import type { ToolCall } from './tool-call';

/** Most tools one model call is offered (OpenAI's limit for function tools). */
export const MAX_OFFERED_TOOLS = 128;

/** Function names the model sees for the offered tools, and the tool behind each. */
export interface ModelTools {
  definitions: ChatCompletionFunctionTool[];
  byName: ReadonlyMap<string, CatalogTool>;
}

/**
 * The offered tools as function tools: names made of `<server>__<tool>` with what OpenAI forbids
 * replaced (`^[A-Za-z0-9_-]{1,64}$`), made unique; the tool's description and input schema.
 *
 * @example
 * const { definitions, byName } = modelTools(offered);
 */
export function modelTools(offered: readonly CatalogTool[]): ModelTools {
  const byName = new Map<string, CatalogTool>();
  const definitions: ChatCompletionFunctionTool[] = [];
  for (const [index, entry] of offered.slice(0, MAX_OFFERED_TOOLS).entries()) {
    let name = `${entry.server}__${entry.tool.name}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
    if (byName.has(name)) name = `${name.slice(0, 58)}_${index}`;
    byName.set(name, entry);
    definitions.push({
      type: 'function',
      function: {
        name,
        description: (entry.tool.description ?? entry.tool.title ?? entry.skillId).slice(0, 1000),
        parameters: entry.tool.inputSchema,
      },
    });
  }
  return { definitions, byName };
}

/** A model's tool call read into a call of a tool, or why it cannot be made. */
export type ReadCall =
  { id: string; call: ToolCall; entry: CatalogTool } | { id: string; problem: string };

/** Reads the model's tool calls: known names only, arguments a JSON object. */
export function readModelCalls(
  calls: readonly ChatCompletionMessageFunctionToolCall[],
  byName: ReadonlyMap<string, CatalogTool>,
): ReadCall[] {
  return calls.map((call) => {
    const entry = byName.get(call.function.name);
    if (entry === undefined) {
      return {
        id: call.id,
        problem: `There is no tool "${call.function.name}"; use one of the tools offered.`,
      };
    }
    const text = call.function.arguments.trim() === '' ? '{}' : call.function.arguments;
    const parsed = safeParseJson({ text, schema: z.record(z.string(), z.unknown()) });
    if (!parsed.success) {
      return { id: call.id, problem: `The arguments for ${entry.skillId} are not a JSON object.` };
    }
    return {
      id: call.id,
      entry,
      call: { server: entry.server, tool: entry.tool.name, arguments: parsed.value },
    };
  });
}

/**
 * One model call with function tools in an LLM span (streamed and joined, so usage is metered like
 * every other call of the turn).
 */
export async function callModel({
  llm,
  messages,
  tools,
  toolChoice = 'auto',
  signal,
  tracer,
}: {
  llm: { client: OpenAI; model: string };
  messages: readonly ChatCompletionMessageParam[];
  tools: readonly ChatCompletionFunctionTool[];
  toolChoice?: ChatCompletionToolChoiceOption;
  signal: AbortSignal;
  tracer: WithSpanOptions['tracer'];
}): Promise<StreamChatResult> {
  return withSpan({ name: 'tools-agent.choose', kind: SpanKind.LLM, tracer }, async (span) => {
    const stream = streamChat({
      client: llm.client,
      model: llm.model,
      messages,
      tools,
      toolChoice,
      temperature: 0,
      invocationParameters: { tools: tools.map((tool) => tool.function.name) },
      signal,
      span,
    });
    let next = await stream.next();
    while (next.done !== true) next = await stream.next();
    return next.value;
  });
}
