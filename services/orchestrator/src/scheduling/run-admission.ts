import { z } from 'zod';
import { findData, orchestrateRequestSchema, partSchema, toJsonRpcError } from '@fleet/a2a';
import { interceptRequests, type A2AHandler, type A2AHandlerResult } from '@fleet/a2a/server';
import { RunQueueFullError, type RunReservation, type RunScheduler } from './run-scheduler';

/**
 * A reservation nobody took is given back after this long: a request whose stream was never
 * read (its client left before the first event) must not keep its tenant's place forever.
 */
const UNCLAIMED_RESERVATION_MS = 60_000;

/** The part of a send request admission looks at; anything else passes to the handler as it is. */
const newRunRequestSchema = z.object({
  method: z.enum(['SendMessage', 'SendStreamingMessage']),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  params: z.object({
    message: z.object({
      messageId: z.string().min(1),
      taskId: z.string().optional(),
      parts: z.array(partSchema),
    }),
  }),
});

/** Where the orchestrator agent finds the place kept for a new run. */
export interface RunAdmission {
  /**
   * Wraps the orchestrator's handler: a new run (`SendMessage` / `SendStreamingMessage` with the
   * `{ fleet }` data part and no `resumeSessionId`) reserves its tenant's place before its task
   * exists, and is refused with a JSON-RPC error (`RATE_LIMITED`, HTTP 429, `Retry-After`) when
   * the tenant's queue is full.
   */
  guard(handler: A2AHandler): A2AHandler;
  /** The reservation made for the message that starts a run, once; undefined when none was. */
  take(messageId: string): RunReservation | undefined;
}

/**
 * Admission of new runs at the orchestrator's A2A edge (docs/architecture.md §5, "Scheduling").
 * The refusal happens before the task is created, so the caller gets a typed error, not a
 * failed task.
 *
 * @example
 * const admission = createRunAdmission(scheduler);
 * const handler = admission.guard(createA2AHandler({ card, execute, store }));
 */
export function createRunAdmission(scheduler: RunScheduler): RunAdmission {
  const reservations = new Map<string, RunReservation>();

  const cancel = (messageId: string, reservation: RunReservation): void => {
    if (reservations.get(messageId) !== reservation) return;
    reservations.delete(messageId);
    reservation.cancel();
  };

  /** Gives an unclaimed reservation back once the request has been handled. */
  const settle = (
    result: A2AHandlerResult,
    { messageId, reservation }: { messageId: string; reservation: RunReservation },
  ): A2AHandlerResult => {
    if (result.type === 'json') {
      cancel(messageId, reservation);
      return result;
    }
    const events = result.events;
    async function* guarded(): typeof events {
      try {
        yield* events;
      } finally {
        cancel(messageId, reservation);
      }
    }
    return { ...result, events: guarded() };
  };

  return {
    guard(handler) {
      return interceptRequests(handler, async (body, context) => {
        const request = newRunRequestSchema.safeParse(body);
        const fleet = request.success
          ? findData(request.data.params.message.parts, orchestrateRequestSchema)?.fleet
          : undefined;
        if (
          !request.success ||
          fleet === undefined ||
          fleet.resumeSessionId !== undefined ||
          request.data.params.message.taskId !== undefined
        ) {
          return handler.handle(body, context);
        }
        const { messageId } = request.data.params.message;
        let reservation: RunReservation;
        try {
          reservation = scheduler.reserve(fleet.tenant);
        } catch (error) {
          if (!(error instanceof RunQueueFullError)) throw error;
          return {
            type: 'json',
            status: 429,
            headers: { 'retry-after': String(error.retryAfterSeconds ?? 1) },
            body: { jsonrpc: '2.0', id: request.data.id ?? null, error: toJsonRpcError(error) },
          };
        }
        reservations.set(messageId, reservation);
        setTimeout(() => cancel(messageId, reservation), UNCLAIMED_RESERVATION_MS).unref();
        try {
          return settle(await handler.handle(body, context), { messageId, reservation });
        } catch (error) {
          cancel(messageId, reservation);
          throw error;
        }
      });
    },
    take(messageId) {
      const reservation = reservations.get(messageId);
      reservations.delete(messageId);
      return reservation;
    },
  };
}
