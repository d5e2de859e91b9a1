import { z } from 'zod';
import { messageSchema, metadataSchema, taskSchema, taskStateSchema } from './core';

/** The A2A v1.0 JSON-RPC methods this package serves and calls. */
export const A2A_METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
] as const;
export type A2AMethod = (typeof A2A_METHODS)[number];

/** Where push notifications for a task go (accepted, not used: `pushNotifications` is false). */
export const taskPushNotificationConfigSchema = z.object({
  taskId: z.string().optional(),
  id: z.string().optional(),
  url: z.string(),
  token: z.string().optional(),
  authentication: z.object({ scheme: z.string(), credentials: z.string().optional() }).optional(),
});
export type TaskPushNotificationConfig = z.infer<typeof taskPushNotificationConfigSchema>;

/** How a `SendMessage` call should behave. */
export const sendMessageConfigurationSchema = z.object({
  acceptedOutputModes: z.array(z.string()).optional(),
  /** Unset: server default; 0: no history; n: the last n messages. */
  historyLength: z.number().int().min(0).optional(),
  taskPushNotificationConfig: taskPushNotificationConfigSchema.optional(),
  /** False (the default) blocks until the task is terminal or interrupted. */
  returnImmediately: z.boolean().optional(),
});
export type SendMessageConfiguration = z.infer<typeof sendMessageConfigurationSchema>;

/** Params of `SendMessage` and `SendStreamingMessage`. */
export const sendMessageRequestSchema = z.object({
  message: messageSchema,
  configuration: sendMessageConfigurationSchema.optional(),
  metadata: metadataSchema.optional(),
  tenant: z.string().optional(),
});
export type SendMessageRequest = z.infer<typeof sendMessageRequestSchema>;

/** Result of `SendMessage`: the task, or a direct message. */
export const sendMessageResponseSchema = z.union([
  z.object({ task: taskSchema }),
  z.object({ message: messageSchema }),
]);
export type SendMessageResponse = z.infer<typeof sendMessageResponseSchema>;

/** Params of `GetTask`. */
export const getTaskRequestSchema = z.object({
  id: z.string().min(1),
  historyLength: z.number().int().min(0).optional(),
  tenant: z.string().optional(),
});
export type GetTaskRequest = z.infer<typeof getTaskRequestSchema>;

/** Params of `ListTasks`. */
export const listTasksRequestSchema = z.object({
  contextId: z.string().optional(),
  status: taskStateSchema.optional(),
  /** 1–100; the server refuses 0 and larger values with -32602. @default 50 */
  pageSize: z.number().int().min(0).optional(),
  pageToken: z.string().optional(),
  historyLength: z.number().int().min(0).optional(),
  /** ISO-8601: only tasks whose status changed after this instant. */
  statusTimestampAfter: z.string().optional(),
  includeArtifacts: z.boolean().optional(),
  tenant: z.string().optional(),
});
export type ListTasksRequest = z.infer<typeof listTasksRequestSchema>;

/** Result of `ListTasks`. */
export const listTasksResponseSchema = z.object({
  tasks: z.array(taskSchema).default([]),
  nextPageToken: z.string().default(''),
  pageSize: z.number().int().default(0),
  totalSize: z.number().int().default(0),
});
export type ListTasksResponse = z.infer<typeof listTasksResponseSchema>;

/** Params of `CancelTask`. */
export const cancelTaskRequestSchema = z.object({
  id: z.string().min(1),
  metadata: metadataSchema.optional(),
  tenant: z.string().optional(),
});
export type CancelTaskRequest = z.infer<typeof cancelTaskRequestSchema>;

/** Params of `SubscribeToTask`. */
export const subscribeToTaskRequestSchema = z.object({
  id: z.string().min(1),
  tenant: z.string().optional(),
});
export type SubscribeToTaskRequest = z.infer<typeof subscribeToTaskRequestSchema>;
