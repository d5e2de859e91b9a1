import {
  createMessage,
  dataPart,
  findData,
  partsText,
  planResultSchema,
  readReportedUsage,
  RESULT_ARTIFACT_NAME,
  textPart,
  type AgentCard,
  type PlanRequest,
  type PlanResult,
} from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { FleetError, ServiceUnavailableError } from '@fleet/errors';
import type { AskPlanner } from './plan-run';

/** Options for {@link createPlannerClient}. */
export interface PlannerClientOptions {
  /** The planner's base URL (PLANNER_URL); its card names the A2A endpoint. */
  url: string;
  /** FLEET_INTERNAL_TOKEN. */
  token: string;
  /** How long one plan request may take (the planner may make several LLM calls). @default 180000 */
  timeoutMs?: number;
  /** For card reads and readiness checks. @default 3000 */
  cardTimeoutMs?: number;
}

/** The planner, over A2A. */
export interface PlannerClient {
  /** Sends one `planRequest` and returns the `result` artifact's plan. */
  askPlanner: AskPlanner;
  /** Resolves when the planner's card can be read (for `/readyz`). */
  checkReady: () => Promise<void>;
}

/** Failures that mean the planner could not be reached (or not used at all), not that it failed. */
const UNREACHABLE_CODES = new Set([
  'UPSTREAM_UNREACHABLE',
  'UPSTREAM_TIMEOUT',
  'SERVICE_UNAVAILABLE',
  'UNAUTHENTICATED',
  'PERMISSION_DENIED',
]);

/**
 * The planner as an A2A agent: its card is read from `url` (and read again after a connection
 * failure, in case it moved), and each plan request is one blocking `SendMessage` with a text part
 * (the request) and a data part `{ planRequest }`, answered by a `result` artifact whose data part
 * is a `PlanResult`. The usage the planner reports on that artifact goes to `onUsage`.
 *
 * Errors: a planner that cannot be reached rejects with `ServiceUnavailableError` naming its URL
 * (the run then fails: there is no hidden local planner); a planner that answered without a plan
 * rejects with an `UPSTREAM_ERROR` FleetError (the run then asks its heuristic strategy).
 *
 * @example
 * const planner = createPlannerClient({ url: config.plannerUrl, token: config.internalToken });
 * const planned = await planRun({ askPlanner: planner.askPlanner, request, agents });
 */
export function createPlannerClient({
  url,
  token,
  timeoutMs = 180_000,
  cardTimeoutMs = 3000,
}: PlannerClientOptions): PlannerClient {
  let client: Promise<A2AClient> | undefined;

  const connect = (): Promise<A2AClient> => {
    client ??= discoverAgentCard(url, { token, timeoutMs: cardTimeoutMs, maxRetries: 1 }).then(
      (card: AgentCard) => new A2AClient({ card, token, timeoutMs, maxRetries: 1 }),
    );
    client.catch(() => {
      client = undefined;
    });
    return client;
  };

  const unreachable = (error: unknown): ServiceUnavailableError => {
    const reason = error instanceof Error ? error.message : String(error);
    return new ServiceUnavailableError(`The planner at ${url} is unreachable: ${reason}`, {
      cause: error,
    });
  };

  const askPlanner: AskPlanner = async (
    request: PlanRequest,
    { signal, onUsage },
  ): Promise<PlanResult> => {
    let planner: A2AClient;
    try {
      planner = await connect();
    } catch (error) {
      throw unreachable(error);
    }
    let reply;
    try {
      reply = await planner.sendMessage(
        {
          message: createMessage({
            parts: [textPart(request.request), dataPart({ planRequest: request })],
          }),
        },
        signal === undefined ? {} : { signal },
      );
    } catch (error) {
      if (
        FleetError.isInstance(error) &&
        (UNREACHABLE_CODES.has(error.code) || [502, 503, 504].includes(error.status))
      ) {
        if (error.code === 'UPSTREAM_UNREACHABLE') client = undefined;
        throw unreachable(error);
      }
      throw error;
    }
    if ('parts' in reply) {
      onUsage?.(readReportedUsage(reply.metadata));
      const direct = findData(reply.parts, planResultSchema);
      if (direct !== undefined) return direct;
      throw new FleetError(
        'UPSTREAM_ERROR',
        `The planner answered without a plan: ${partsText(reply.parts) || 'no text'}`,
      );
    }
    const artifact = reply.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
    // The planner reports its model calls on its result artifact (docs/a2a.md §8, "Usage").
    onUsage?.(readReportedUsage(artifact?.metadata));
    const result = artifact === undefined ? undefined : findData(artifact.parts, planResultSchema);
    if (reply.status.state === 'TASK_STATE_COMPLETED' && result !== undefined) return result;
    const statusText =
      reply.status.message === undefined ? '' : partsText(reply.status.message.parts);
    throw new FleetError(
      'UPSTREAM_ERROR',
      reply.status.state === 'TASK_STATE_COMPLETED'
        ? 'The planner completed without a valid plan in its result artifact.'
        : `The planner's task ended ${reply.status.state}${statusText ? `: ${statusText}` : ''}`,
    );
  };

  return {
    askPlanner,
    async checkReady() {
      await discoverAgentCard(url, { token, timeoutMs: cardTimeoutMs, maxRetries: 0 });
    },
  };
}
