import { createHash } from 'node:crypto';
import { z } from 'zod';
import { findData, toolSkillId, type Message } from '@fleet/a2a';

/** Most tool calls one approval covers (one model round). */
export const MAX_CALLS_PER_ROUND = 16;

/** One call of one tool, exactly as it will be sent. */
export const toolCallSchema = z.object({
  server: z.string().min(1).max(64),
  tool: z.string().min(1).max(128),
  arguments: z.record(z.string(), z.unknown()),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

/**
 * The calls the agent asks approval for: a data part `{ pendingToolCalls }` of its
 * TASK_STATE_AUTH_REQUIRED status message, beside `{ approval }`. The continuation reads it back
 * from the task's history, from the agent's own messages only, so a client cannot slip in other
 * arguments than the ones approved.
 */
export const pendingToolCallsSchema = z.object({
  pendingToolCalls: z.object({
    calls: z.array(toolCallSchema).min(1).max(MAX_CALLS_PER_ROUND),
    /** The step they were chosen for. */
    task: z.string(),
    /** When the approval lapses (ISO time). */
    expiresAt: z.string(),
    /** 1 for the first request, 2 after arguments revised with a person's instructions, … */
    revision: z.number().int().min(1),
  }),
});
export type PendingToolCalls = z.infer<typeof pendingToolCallsSchema>['pendingToolCalls'];

/** The latest calls the agent asked approval for in a task, from its own messages, or undefined. */
export function latestPendingCalls(history: readonly Message[]): PendingToolCalls | undefined {
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index];
    if (message === undefined || message.role !== 'ROLE_AGENT') continue;
    const pending = findData(message.parts, pendingToolCallsSchema);
    if (pending !== undefined) return pending.pendingToolCalls;
  }
  return undefined;
}

/** JSON with object keys sorted at every level: equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : inner,
  );
}

/** `<server>/<tool>` of a call. */
export function callName(call: Pick<ToolCall, 'server' | 'tool'>): string {
  return toolSkillId(call.server, call.tool);
}

/**
 * The claim key of a call (`context.claimOnce`): server, tool and a digest of its arguments, so an
 * approval that arrives twice never makes the same call twice.
 */
export function callKey(call: ToolCall): string {
  const digest = createHash('sha256').update(canonicalJson(call.arguments)).digest('hex');
  return `call-tool:${callName(call)}:${digest.slice(0, 24)}`;
}

/** True when both lists make the same calls with the same arguments, in the same order. */
export function sameCalls(left: readonly ToolCall[], right: readonly ToolCall[]): boolean {
  return (
    left.length === right.length &&
    left.every((call, index) => {
      const other = right[index];
      return other !== undefined && callKey(call) === callKey(other);
    })
  );
}
