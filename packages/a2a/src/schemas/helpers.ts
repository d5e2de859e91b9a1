import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Message, Part, Role, TaskState } from './core';

/** A text part. */
export function textPart(text: string): Part {
  return { text };
}

/** A data part (`mediaType: application/json`) carrying any JSON value. */
export function dataPart(data: unknown): Part {
  return { data, mediaType: 'application/json' };
}

/** The text parts joined with newlines (other parts are skipped). */
export function partsText(parts: readonly Part[]): string {
  return parts
    .map((part) => part.text)
    .filter((text): text is string => text !== undefined)
    .join('\n');
}

/**
 * The first data part whose content parses with `schema`, or undefined.
 *
 * @example
 * const input = findData(context.message.parts, nodeInputSchema);
 */
export function findData<TSchema extends z.ZodType>(
  parts: readonly Part[],
  schema: TSchema,
): z.output<TSchema> | undefined {
  for (const part of parts) {
    if (part.data === undefined) continue;
    const parsed = schema.safeParse(part.data);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

const TERMINAL_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_FAILED',
  'TASK_STATE_REJECTED',
]);

const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);

/** True for COMPLETED, CANCELED, FAILED and REJECTED: the task takes no more messages. */
export function isTerminalState(state: TaskState): boolean {
  return TERMINAL_STATES.has(state);
}

/** True for INPUT_REQUIRED and AUTH_REQUIRED: the turn is over, the task waits for a message. */
export function isInterruptedState(state: TaskState): boolean {
  return INTERRUPTED_STATES.has(state);
}

/** Options for {@link createMessage}. */
export interface CreateMessageOptions {
  /** A string becomes one text part. */
  parts: string | Part[];
  /** @default 'ROLE_USER' */
  role?: Role;
  /** Continues this task (input-required or auth-required). */
  taskId?: string | undefined;
  /** Starts the task in this conversation. */
  contextId?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/**
 * A message with a fresh `messageId`.
 *
 * @example
 * await client.sendMessage({ message: createMessage({ parts: [textPart('hi'), dataPart(input)] }) });
 */
export function createMessage({
  parts,
  role = 'ROLE_USER',
  taskId,
  contextId,
  metadata,
}: CreateMessageOptions): Message {
  return {
    messageId: randomUUID(),
    role,
    parts: typeof parts === 'string' ? [textPart(parts)] : parts,
    ...(taskId === undefined ? {} : { taskId }),
    ...(contextId === undefined ? {} : { contextId }),
    ...(metadata === undefined ? {} : { metadata }),
  };
}
