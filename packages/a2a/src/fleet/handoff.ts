import { z } from 'zod';
import type { Part } from '../schemas/core';
import { dataPart } from '../schemas/helpers';

/** Longest task a hand-off may ask for, in characters. */
export const MAX_HANDOFF_TASK = 4000;

/** Longest context a hand-off may carry, in characters (a longer one is cut, with `…`). */
export const MAX_HANDOFF_CONTEXT = 16_000;

/** Most hand-offs one step's result may ask for (the rest are refused as too many). */
export const MAX_HANDOFFS_PER_STEP = 4;

/** How many hand-offs one run may add, unless the orchestrator is told otherwise. */
export const DEFAULT_MAX_HANDOFFS = 3;

/**
 * A request, in a step's result, for more work by another agent: the orchestrator adds a step to
 * the running plan (docs/a2a.md, "Hand-offs"). It names the agent (`agent`, as its card names it)
 * or a skill (`skill`: a skill id, or `<agent>/<skill>`), or both, says what to do (`task`) and
 * may pass what the new step needs to know (`context`). The new step depends on the step that
 * handed off, so it also gets that step's result.
 */
export const handoffRequestSchema = z
  .object({
    agent: z.string().trim().min(1).max(128).optional(),
    skill: z.string().trim().min(1).max(128).optional(),
    task: z.string().trim().min(1, 'a hand-off says what to do').max(MAX_HANDOFF_TASK),
    context: z.string().max(MAX_HANDOFF_CONTEXT).optional(),
  })
  .refine((request) => request.agent !== undefined || request.skill !== undefined, {
    message: 'a hand-off names an agent or a skill',
  });
export type HandoffRequest = z.infer<typeof handoffRequestSchema>;

/**
 * The data part that carries hand-offs: `{ "handoff": { agent?, skill?, task, context? } }`, or
 * `{ "handoff": [ … ] }` for several. An agent puts it in an artifact or in the message of its
 * final status.
 */
export const handoffPartSchema = z.object({
  handoff: z.union([handoffRequestSchema, z.array(handoffRequestSchema).min(1)]),
});

/**
 * The data part our agents send to hand work off.
 *
 * @example
 * artifact.parts.push(handoffPart({ skill: 'web-search', task: 'Find the G3 price' }));
 */
export function handoffPart(request: HandoffRequest | readonly HandoffRequest[]): Part {
  const requests: readonly HandoffRequest[] = isHandoffList(request) ? request : [request];
  return dataPart({ handoff: requests.length === 1 ? requests[0] : [...requests] });
}

function isHandoffList(
  request: HandoffRequest | readonly HandoffRequest[],
): request is readonly HandoffRequest[] {
  return Array.isArray(request);
}

/** What {@link readHandoffs} found in a step's parts. */
export interface ReadHandoffs {
  /** The hand-offs asked for, in order (at most {@link MAX_HANDOFFS_PER_STEP}). */
  requests: HandoffRequest[];
  /** Why a hand-off found was not taken: malformed, or one too many. */
  refused: string[];
}

/**
 * The hand-offs a step's result asks for, read liberally from foreign agents: the key `handoff`
 * or `handoffs`, a single object or a list, `agentName`/`skillId`/`instructions`/`message` as
 * other names for `agent`/`skill`/`task`, a context that is JSON instead of text (stringified),
 * a context too long (cut). What still does not read is listed in `refused`, never thrown.
 *
 * @example
 * const { requests, refused } = readHandoffs([...artifactParts, ...statusParts]);
 */
export function readHandoffs(parts: readonly Part[]): ReadHandoffs {
  const requests: HandoffRequest[] = [];
  const refused: string[] = [];
  for (const part of parts) {
    const data = part.data;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) continue;
    const record = data as Record<string, unknown>;
    const found = record['handoff'] ?? record['handoffs'];
    if (found === undefined) continue;
    const entries = Array.isArray(found) ? found : [found];
    for (const entry of entries) {
      const parsed = handoffRequestSchema.safeParse(normaliseHandoff(entry));
      if (!parsed.success) {
        refused.push(
          `a hand-off that does not read: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`,
        );
        continue;
      }
      if (requests.length >= MAX_HANDOFFS_PER_STEP) {
        refused.push(
          `a step may hand off at most ${MAX_HANDOFFS_PER_STEP} times: "${parsed.data.task.slice(0, 80)}" was not taken`,
        );
        continue;
      }
      requests.push(parsed.data);
    }
  }
  return { requests, refused };
}

function normaliseHandoff(entry: unknown): unknown {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return entry;
  const record = entry as Record<string, unknown>;
  const text = (value: unknown): string | undefined =>
    typeof value === 'string' && value.trim() !== '' ? value : undefined;
  const context = record['context'];
  const contextText =
    context === undefined || context === null
      ? undefined
      : typeof context === 'string'
        ? context
        : JSON.stringify(context);
  return {
    agent: text(record['agent']) ?? text(record['agentName']) ?? text(record['agent_name']),
    skill: text(record['skill']) ?? text(record['skillId']) ?? text(record['skill_id']),
    task: record['task'] ?? record['instructions'] ?? record['message'],
    context:
      contextText === undefined || contextText.length <= MAX_HANDOFF_CONTEXT
        ? contextText
        : `${contextText.slice(0, MAX_HANDOFF_CONTEXT - 1)}…`,
  };
}
