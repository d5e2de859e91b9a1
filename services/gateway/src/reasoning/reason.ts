import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { dataPart, textPart, type Message, type Part, type ToolPolicy } from '@fleet/a2a';
import type { A2AClient } from '@fleet/a2a/client';
import {
  Attributes,
  SpanKind,
  setSessionAttributes,
  setSpanInput,
  type Span,
} from '@fleet/telemetry';
import type { ChatCompletionRequest } from '../chat/chat-completion-request';
import type { AnswerChannelFactory } from '../openai';
import { splitConversation } from '../orchestration';
import { answerReasoning, type AnswerReasoningOptions } from './answer-reasoning';

/** Most earlier turns sent to the reasoning agent (it refuses more); older ones are dropped. */
export const MAX_REASONING_HISTORY = 100;

/** What one reasoning request needs. */
export interface ReasonOptions {
  client: A2AClient;
  /** The reasoning agent's base URL, named when it cannot be reached. */
  agentUrl: string;
  request: ChatCompletionRequest;
  tenant: string;
  /**
   * The tenant's tool policy (GATEWAY_TOOL_PERMISSIONS), sent as `reasoning.toolPolicy`: the MCP
   * tools the agent may use. Undefined: every tool.
   */
  toolPolicy?: ToolPolicy | undefined;
  /** The files the request brings, as A2A file parts, sent after the data part. @default none */
  attachments?: readonly Part[] | undefined;
  res: ServerResponse;
  /** Headers every answer carries (the route taken). */
  responseHeaders: Record<string, string>;
  /** The gateway's root span. */
  span: Span | undefined;
  /**
   * The API the client called (the span is named after it) and how the answer is rendered for it.
   * @default the chat completions API: `/v1/chat/completions`, {@link chatAnswerChannel}
   */
  api?: { path: string; channel: AnswerChannelFactory } | undefined;
  /** Keep-alive comment interval while the agent is quiet. @default 15000 */
  keepAliveMs?: number;
  /** Gets the agent's usage once its answer is complete (undefined when it reported none). */
  onUsage?: AnswerReasoningOptions['onUsage'];
}

/**
 * `X-Routing-Mode: reasoning`: sends the last user message (and the conversation before it, as the
 * data part `{ reasoning: { history, toolPolicy? } }`, with the tenant's tool policy) to the reasoning agent over A2A and answers in OpenAI's
 * shape ({@link answerReasoning}): its steps as `reasoning_content`, its answer as `content`.
 *
 * @throws FleetError before anything was sent (agent unreachable, failed task when not streaming).
 * @example
 * await reason({ client, agentUrl, request, tenant, res, responseHeaders, span: getActiveSpan() });
 */
export async function reason({
  client,
  agentUrl,
  request,
  tenant,
  toolPolicy,
  attachments = [],
  res,
  responseHeaders,
  span,
  keepAliveMs = 15_000,
  api,
  onUsage,
}: ReasonOptions): Promise<void> {
  const { text, history } = splitConversation(request.messages);
  const message: Message = {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [
      textPart(text),
      dataPart({
        reasoning: {
          history: history.slice(-MAX_REASONING_HISTORY),
          ...(toolPolicy === undefined ? {} : { toolPolicy }),
        },
      }),
      ...attachments,
    ],
  };
  if (span?.isRecording()) {
    span.updateName(`POST ${api?.path ?? '/v1/chat/completions'} (reasoning)`);
    span.setAttribute(Attributes.SPAN_KIND, SpanKind.CHAIN);
    setSessionAttributes(span, { userId: tenant });
    setSpanInput(span, text);
  }
  await answerReasoning({
    events: (signal) => client.sendStreamingMessage({ message }, { signal }),
    agentUrl,
    model: request.model,
    stream: request.stream === true,
    includeUsage: request.stream_options?.include_usage === true,
    res,
    responseHeaders,
    span,
    keepAliveMs,
    channel: api?.channel,
    onUsage,
  });
}
