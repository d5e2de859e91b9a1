import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import { dataPart, textPart } from '@fleet/a2a';
import type { AgentContext, AgentExecute } from '@fleet/a2a/server';
import {
  completed,
  failed,
  plural,
  rejected,
  resultChunk,
  resultEnd,
  working,
  type AgentEvents,
} from '@fleet/agent-kit';
import { ServiceUnavailableError } from '@fleet/errors';
import { OFFLINE_HINT } from '@fleet/llm';
import { getActiveSpan, setSessionAttributes, type WithSpanOptions } from '@fleet/telemetry';
import {
  DEFAULT_MAX_ATTACHMENT_BYTES,
  DEFAULT_MAX_ATTACHMENTS,
  describeAttachment,
  describeStep,
  runReasoning,
  type ReasoningOutcome,
} from '../reasoning';
import type { McpToolbox } from '../mcp';
import type { ReasoningTool } from '../tools';
import { readReasoningInput } from './read-reasoning-input';
import type { ReasoningResultData, StepData } from './result-data';

/** The upstream model the loop calls; undefined in offline mode. */
export interface ReasoningLlm {
  client: OpenAI;
  model: string;
}

/** Options for {@link createReasoningAgent}. */
export interface CreateReasoningAgentOptions {
  llm: ReasoningLlm | undefined;
  /** The built-in tools. */
  tools: readonly ReasoningTool[];
  /** The MCP servers' tools, asked for each task with its tool policies. @default none */
  mcpTools?: Pick<McpToolbox, 'tools'> | undefined;
  /** REASONING_MAX_ITERATIONS */
  maxIterations: number;
  /** REASONING_MAX_TOKENS */
  maxTokens: number;
  /** REASONING_MAX_ATTACHMENTS: files of one message read. @default 8 */
  maxAttachments?: number;
  /** REASONING_MAX_ATTACHMENT_BYTES: bytes of one message's files read in all. @default 8 MiB */
  maxAttachmentBytes?: number;
  tracer?: WithSpanOptions['tracer'];
}

/** The JSON-RPC body besides the files: the question, the history, the node input. */
const ENVELOPE_BYTES = 1024 * 1024;

/**
 * The JSON-RPC body limit that lets `maxAttachmentBytes` of files through: their base64 size
 * (4/3) plus 1 MiB for the rest of the message.
 *
 * @example
 * attachmentBodyLimit(8 * 1024 * 1024); // 12_233_388
 */
export function attachmentBodyLimit(maxAttachmentBytes: number): number {
  return Math.ceil(maxAttachmentBytes / 3) * 4 + ENVELOPE_BYTES;
}

/** What a task says in offline mode: the agent cannot think without a model. */
export const REASONING_OFFLINE_MESSAGE = `The reasoning agent needs an upstream LLM and none is configured. ${OFFLINE_HINT}`;

function resultData(
  outcome: ReasoningOutcome,
  budget: { maxIterations: number; maxTokens: number },
): ReasoningResultData {
  const toolCalls = outcome.steps.flatMap((step) => {
    if (step.type !== 'tool-result') return [];
    const call = outcome.steps.find(
      (each) => each.type === 'tool-call' && each.callId === step.callId,
    );
    return [
      {
        name: step.name,
        arguments: call?.type === 'tool-call' ? call.arguments : '',
        ok: step.ok,
        output: step.output,
      },
    ];
  });
  return {
    steps: outcome.steps,
    toolCalls,
    iterations: outcome.iterations,
    stopReason: outcome.stopReason,
    usage: outcome.usage,
    budget,
    model: outcome.model,
  };
}

function summary(outcome: ReasoningOutcome, data: ReasoningResultData): string {
  const spent = `${plural(outcome.iterations, 'model call')}, ${plural(data.toolCalls.length, 'tool call')}, ${plural(outcome.usage.totalTokens, 'token')}`;
  return outcome.stopReason === 'answered'
    ? `Answered after ${spent}.`
    : `Stopped when the ${outcome.stopReason === 'token-budget' ? 'token' : 'iteration'} budget ran out, after ${spent}.`;
}

/**
 * The reasoning agent (docs/architecture.md §1, §4): one task per message. It reads the question (text
 * part), the conversation before it (`{ reasoning: { history, toolPolicy } }`) or the fleet node
 * input, and the files that came with it (images go to the model as `image_url` parts, text
 * files as text, the rest named as not readable here), and runs the reasoning loop with the built-in tools and the MCP tools the task's tool
 * policies permit. Every step becomes a WORKING status update (`Thinking: …`,
 * `Calling calculate(…)`, `Result: …`, with the step as data part `{ reasoningStep }`), then the
 * `result` artifact, its text streamed in chunks (live from the last allowed model call, which has
 * no tools; from a call that offered tools once it is clear no tool call came), the last chunk
 * holding the whole answer text and the data part (`reasoningResultDataSchema`: steps, tool
 * calls, iterations, stop reason, token usage). Offline it FAILS with how to configure an upstream
 * (naming the files it got);
 * an upstream error FAILS with the error; an empty or malformed message is REJECTED. Cancellation
 * stops the model call.
 *
 * @example
 * const execute = createReasoningAgent({ llm: { client, model }, tools: createReasoningTools(), maxIterations: 6, maxTokens: 16000 });
 */
export function createReasoningAgent({
  llm,
  tools,
  mcpTools,
  maxIterations,
  maxTokens,
  maxAttachments = DEFAULT_MAX_ATTACHMENTS,
  maxAttachmentBytes = DEFAULT_MAX_ATTACHMENT_BYTES,
  tracer,
}: CreateReasoningAgentOptions): AgentExecute {
  return async function* reasoningAgent(context: AgentContext): AgentEvents {
    const input = readReasoningInput(context.message.parts, {
      maxFiles: maxAttachments,
      maxTotalBytes: maxAttachmentBytes,
    });
    if (input.kind === 'invalid') {
      yield rejected(input.reason);
      return;
    }
    if (input.node !== undefined) {
      setSessionAttributes(getActiveSpan(), { sessionId: input.node.sessionId });
    }
    if (llm === undefined) {
      const got =
        input.attachments.length === 0
          ? ''
          : ` It got ${plural(input.attachments.length, 'file')}, which it cannot read without one: ${input.attachments.map(describeAttachment).join(', ')}.`;
      yield failed(new ServiceUnavailableError(`${REASONING_OFFLINE_MESSAGE}${got}`));
      return;
    }
    try {
      yield working();
      // MCP tools are offered after the built-in ones, and only those the task's policies permit.
      const offered =
        mcpTools === undefined
          ? tools
          : [...tools, ...(await mcpTools.tools({ policies: input.toolPolicies }))];
      const run = runReasoning({
        client: llm.client,
        model: llm.model,
        question: input.question,
        history: input.history,
        context: input.context,
        attachments: input.attachments,
        tools: offered,
        maxIterations,
        maxTokens,
        signal: context.signal,
        tracer,
      });
      // The answer streams as chunks of the `result` artifact; the last chunk holds it whole.
      const artifactId = randomUUID();
      for await (const event of run) {
        switch (event.type) {
          case 'step': {
            const data: StepData = { reasoningStep: event.step };
            yield working([textPart(describeStep(event.step)), dataPart(data)]);
            break;
          }
          case 'answer-delta':
            yield resultChunk(artifactId, event.text);
            break;
          case 'end': {
            const { outcome } = event;
            const data = resultData(outcome, { maxIterations, maxTokens });
            yield resultEnd(artifactId, outcome.answer, data);
            yield completed(summary(outcome, data));
            break;
          }
        }
      }
    } catch (error) {
      if (context.signal.aborted) throw error;
      yield failed(error);
    }
  };
}
