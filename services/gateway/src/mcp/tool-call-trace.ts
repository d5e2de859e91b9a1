import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import {
  Attributes,
  MAX_TRACEPARENT_LENGTH,
  MAX_TRACESTATE_LENGTH,
  remoteParentContext,
  requestSpan,
  SpanKind,
  withSpan,
  type TraceContextCarrier,
  type WithSpanOptions,
} from '@fleet/telemetry';

/** Longest tool name read for a span name (MCP tool names are 1 to 128 characters). */
const MAX_TOOL_NAME = 128;

/**
 * What a `tools/call` request's span needs from its JSON-RPC body: the tool, and the caller's W3C
 * trace context from `params._meta` (where the 2026-07-28 revision puts `traceparent` and
 * `tracestate`; read on 2025-11-25 requests too). Anything else in the body is the SDK's business.
 */
const toolCallSchema = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.literal('tools/call'),
  params: z.object({
    name: z.string().min(1).max(MAX_TOOL_NAME),
    arguments: z.unknown().optional(),
    _meta: z
      .object({
        traceparent: z.string().max(MAX_TRACEPARENT_LENGTH).optional().catch(undefined),
        tracestate: z.string().max(MAX_TRACESTATE_LENGTH).optional().catch(undefined),
      })
      .optional()
      .catch(undefined),
  }),
});

/** A `tools/call` request, as {@link readToolCall} found it. */
export interface ToolCall {
  /** The tool called. */
  name: string;
  /** Its arguments as sent (the span's input). */
  arguments: unknown;
  /** The caller's trace context from `params._meta`; empty when it sent none. */
  trace: TraceContextCarrier;
}

/**
 * The tool call a `/mcp` POST body carries, given the body as the router parsed it (undefined when
 * it is not JSON), or undefined for any other message (another method, a notification, a batch:
 * the SDK answers those).
 *
 * @example
 * readToolCall(JSON.parse(body)); // { name: 'search_documents', trace: { traceparent: '00-…-01' } }
 */
export function readToolCall(parsed: unknown): ToolCall | undefined {
  if ((parsed as { method?: unknown } | null | undefined)?.method !== 'tools/call') {
    return undefined;
  }
  const call = toolCallSchema.safeParse(parsed);
  if (!call.success) return undefined;
  const { name, arguments: args, _meta: meta } = call.data.params;
  return {
    name,
    arguments: args,
    trace: {
      ...(meta?.traceparent !== undefined && { traceparent: meta.traceparent }),
      ...(meta?.tracestate !== undefined && { tracestate: meta.tracestate }),
    },
  };
}

/** What {@link traceToolCall} needs. */
export interface TraceToolCallOptions {
  /** The `/mcp` request, whose server span the tool call's span is a child of or linked to. */
  req: IncomingMessage;
  call: ToolCall;
  /** The tenant the call serves (`user.id`). */
  tenant: string;
  /** @default the global one */
  tracer?: WithSpanOptions['tracer'];
}

/**
 * Runs `serve` (the MCP handler answering the call) inside the tool call's `TOOL` span,
 * `tools/call <tool>` with the OpenTelemetry MCP attributes (`mcp.method.name`, `gen_ai.tool.name`,
 * `gen_ai.operation.name`), `tool.name`, `user.id` and the arguments as input (docs/tracing.md §3).
 * When the call carries a valid `_meta.traceparent`, the span continues the caller's trace under
 * the caller's span and links to the `/mcp` request's own span (a root, like every request the
 * gateway receives); otherwise it is a child of the request's span. The RAG agent and anything else
 * the tool calls see the span's trace.
 *
 * @example
 * await traceToolCall({ req, call, tenant, tracer }, () => serve(request, res));
 */
export function traceToolCall<T>(
  { req, call, tenant, tracer }: TraceToolCallOptions,
  serve: () => Promise<T>,
): Promise<T> {
  const parent = remoteParentContext(call.trace);
  const request = requestSpan(req)?.spanContext();
  return withSpan(
    {
      name: `tools/call ${call.name}`,
      kind: SpanKind.TOOL,
      input: call.arguments,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.name,
        [Attributes.TOOL_NAME]: call.name,
        [Attributes.USER_ID]: tenant,
      },
      tracer,
      parent,
      links: parent !== undefined && request !== undefined ? [{ context: request }] : undefined,
    },
    serve,
  );
}
