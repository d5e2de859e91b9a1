import { z } from 'zod';

/**
 * A2A v1.0 core objects in their ProtoJSON wire shape (docs/a2a.md §3). ProtoJSON leaves out fields
 * that hold their default value, so lists default to `[]` and optional members may be absent;
 * unknown keys from peers are accepted (and dropped).
 */

/** The protocol version this package speaks, as the `A2A-Version` header carries it. */
export const A2A_VERSION = '1.0';

/** Free-form metadata (`google.protobuf.Struct`). */
export const metadataSchema = z.record(z.string(), z.unknown());

const PART_CONTENT_MEMBERS = ['text', 'data', 'url', 'raw'] as const;

/**
 * One piece of content: exactly one of `text`, `data` (any JSON value), `url` or `raw` (base64),
 * plus optional `mediaType`, `filename` and `metadata`.
 */
export const partSchema = z
  .object({
    text: z.string().optional(),
    data: z.unknown().optional(),
    url: z.string().optional(),
    raw: z.string().optional(),
    mediaType: z.string().optional(),
    filename: z.string().optional(),
    metadata: metadataSchema.optional(),
  })
  .superRefine((part, context) => {
    const present = PART_CONTENT_MEMBERS.filter((member) => part[member] !== undefined);
    if (present.length !== 1) {
      context.addIssue({
        code: 'custom',
        message: `a part has exactly one of text, data, url or raw (found ${present.length === 0 ? 'none' : present.join(', ')})`,
      });
    }
  });
export type Part = z.infer<typeof partSchema>;

/** Who sent a message. */
export const roleSchema = z.enum(['ROLE_USER', 'ROLE_AGENT']);
export type Role = z.infer<typeof roleSchema>;

/** One message of a conversation. */
export const messageSchema = z.object({
  messageId: z.string().min(1),
  role: roleSchema,
  parts: z.array(partSchema).default([]),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  referenceTaskIds: z.array(z.string()).optional(),
  extensions: z.array(z.string()).optional(),
  metadata: metadataSchema.optional(),
});
export type Message = z.infer<typeof messageSchema>;

/** The lifecycle states of a task (`TASK_STATE_UNSPECIFIED` is never emitted). */
export const taskStateSchema = z.enum([
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_FAILED',
  'TASK_STATE_REJECTED',
]);
export type TaskState = z.infer<typeof taskStateSchema>;

/** A task's state, with an optional message to the client and an ISO-8601 timestamp. */
export const taskStatusSchema = z.object({
  state: taskStateSchema,
  message: messageSchema.optional(),
  timestamp: z.string().optional(),
});
export type TaskStatus = z.infer<typeof taskStatusSchema>;

/** A result the agent produced. */
export const artifactSchema = z.object({
  artifactId: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(partSchema).default([]),
  metadata: metadataSchema.optional(),
  extensions: z.array(z.string()).optional(),
});
export type Artifact = z.infer<typeof artifactSchema>;

/** A unit of work the server created for a message. */
export const taskSchema = z.object({
  id: z.string().min(1),
  contextId: z.string().default(''),
  status: taskStatusSchema,
  artifacts: z.array(artifactSchema).optional(),
  history: z.array(messageSchema).optional(),
  metadata: metadataSchema.optional(),
});
export type Task = z.infer<typeof taskSchema>;

/** A status change of a task, as streamed. */
export const taskStatusUpdateEventSchema = z.object({
  taskId: z.string(),
  contextId: z.string().default(''),
  status: taskStatusSchema,
  metadata: metadataSchema.optional(),
});
export type TaskStatusUpdateEvent = z.infer<typeof taskStatusUpdateEventSchema>;

/** A new artifact, or more parts of one (`append`), as streamed. */
export const taskArtifactUpdateEventSchema = z.object({
  taskId: z.string(),
  contextId: z.string().default(''),
  artifact: artifactSchema,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: metadataSchema.optional(),
});
export type TaskArtifactUpdateEvent = z.infer<typeof taskArtifactUpdateEventSchema>;

/**
 * One event of a stream (and the body of a push notification): exactly one of `task`, `message`,
 * `statusUpdate` or `artifactUpdate`.
 */
export const streamResponseSchema = z.union([
  z.object({ task: taskSchema }),
  z.object({ message: messageSchema }),
  z.object({ statusUpdate: taskStatusUpdateEventSchema }),
  z.object({ artifactUpdate: taskArtifactUpdateEventSchema }),
]);
export type StreamResponse = z.infer<typeof streamResponseSchema>;
