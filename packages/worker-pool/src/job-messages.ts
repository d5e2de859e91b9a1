import { z } from 'zod';
import { FleetError, fromErrorBody, isErrorCode } from '@fleet/errors';
import { WorkerJobFailedError } from './worker-job-failed-error';

/** What the pool sends a worker: one job. */
export const jobRequestSchema = z.object({
  type: z.literal('job'),
  id: z.number().int(),
  kind: z.string(),
  payload: z.unknown(),
});
export type JobRequest = z.infer<typeof jobRequestSchema>;

/** An error as it crosses the thread boundary: a fleet error keeps its code, status and details. */
export const serializedErrorSchema = z.object({
  name: z.string(),
  message: z.string(),
  code: z.string().optional(),
  status: z.number().int().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type SerializedError = z.infer<typeof serializedErrorSchema>;

/** What a worker sends the pool: that it is ready, or a job's result or failure. */
export const workerMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('result'), id: z.number().int(), value: z.unknown() }),
  z.object({ type: z.literal('failure'), id: z.number().int(), error: serializedErrorSchema }),
]);
export type WorkerMessage = z.infer<typeof workerMessageSchema>;

/** The error a handler threw, as a structured-clone-safe object. */
export function serializeError(error: unknown): SerializedError {
  if (FleetError.isInstance(error)) {
    return {
      name: error.name,
      message: error.message,
      code: error.code,
      status: error.status,
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/**
 * The error a worker sent, rebuilt: a fleet error as its typed class (`fromErrorBody`: a 413
 * stays a `PayloadTooLargeError` with its details), anything else as a {@link WorkerJobFailedError}.
 */
export function reviveError(serialized: SerializedError): FleetError {
  const { code, status, message, details } = serialized;
  if (code !== undefined && isErrorCode(code)) {
    return fromErrorBody(status ?? 500, {
      error: { code, message, ...(details === undefined ? {} : { details }) },
    });
  }
  return new WorkerJobFailedError(
    `The worker failed: ${serialized.name}: ${message}`.slice(0, 500),
  );
}
