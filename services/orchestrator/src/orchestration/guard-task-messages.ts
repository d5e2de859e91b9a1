import { z } from 'zod';
import {
  findData,
  InvalidParamsError,
  orchestrateRequestSchema,
  partSchema,
  toJsonRpcError,
} from '@fleet/a2a';
import { interceptRequests, type A2AHandler } from '@fleet/a2a/server';

/** The part of a send request this guard looks at; anything else passes as it is. */
const taskMessageSchema = z.object({
  method: z.enum(['SendMessage', 'SendStreamingMessage']),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  params: z.object({
    message: z.object({ taskId: z.string().min(1), parts: z.array(partSchema) }),
  }),
});

/**
 * Lets through only the messages to an existing orchestrator task that the orchestrator can act
 * on: a resume of a session (`{ fleet: { tenant, resumeSessionId } }`), which takes over a task
 * whose orchestrator died. An orchestrator task is never input- or auth-required (people answer
 * through the sessions API), so any other message to a task is a caller's mistake, refused with
 * -32602 before it reaches the task — it must not become a turn that ends the run.
 *
 * @example
 * const handler = guardTaskMessages(createA2AHandler({ card, execute, store, lostTurns: 'take-over' }));
 */
export function guardTaskMessages(handler: A2AHandler): A2AHandler {
  return interceptRequests(handler, (body, context) => {
    const request = taskMessageSchema.safeParse(body);
    if (!request.success) return handler.handle(body, context);
    const fleet = findData(request.data.params.message.parts, orchestrateRequestSchema)?.fleet;
    if (fleet?.resumeSessionId !== undefined) return handler.handle(body, context);
    const error = new InvalidParamsError(
      `A message to orchestrator task ${request.data.params.message.taskId} continues a session: it needs the data part { "fleet": { "tenant": "…", "resumeSessionId": "…" } }. Start a new run without a taskId.`,
      { param: 'message.taskId' },
    );
    return Promise.resolve({
      type: 'json',
      status: 200,
      body: { jsonrpc: '2.0', id: request.data.id ?? null, error: toJsonRpcError(error) },
    });
  });
}
