import { agentListingSchema, type AgentListing } from '@fleet/a2a';
import {
  safeParseJson,
  ServiceUnavailableError,
  UpstreamError,
  UpstreamTimeoutError,
} from '@fleet/errors';

/** The orchestrator's agent listing, as the gateway reads it. */
export interface AgentsClient {
  /**
   * The agents the orchestrator can use now (`GET /internal/agents`), before any tool policy.
   *
   * @throws ServiceUnavailableError (503) when the orchestrator cannot be reached or refuses the
   *   internal token; UpstreamTimeoutError (504) when it does not answer in time; UpstreamError
   *   (502) for any other answer that is not a listing.
   */
  list(options?: { signal?: AbortSignal | undefined }): Promise<AgentListing['agents']>;
}

/** Options for {@link createAgentsClient}. */
export interface CreateAgentsClientOptions {
  /** The orchestrator's base URL (ORCHESTRATOR_URL). */
  orchestratorUrl: string;
  /** FLEET_INTERNAL_TOKEN. */
  token: string;
  /** How long the listing may take. @default 10000 */
  timeoutMs?: number;
  /** Largest listing read, in bytes. @default 4194304 (4 MiB) */
  maxBytes?: number;
}

/**
 * Reads the orchestrator's agent listing (`GET <orchestratorUrl>/internal/agents`, bearer internal
 * token), checked with `agentListingSchema` of `@fleet/a2a`.
 *
 * @example
 * const agents = createAgentsClient({ orchestratorUrl: config.orchestratorUrl, token });
 * const listed = await agents.list();
 */
export function createAgentsClient({
  orchestratorUrl,
  token,
  timeoutMs = 10_000,
  maxBytes = 4 * 1024 * 1024,
}: CreateAgentsClientOptions): AgentsClient {
  const url = `${orchestratorUrl.replace(/\/+$/, '')}/internal/agents`;
  return {
    async list({ signal } = {}) {
      const timeout = AbortSignal.timeout(timeoutMs);
      let response: Response;
      let text: string;
      try {
        response = await fetch(url, {
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
          signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
        });
        const length = Number(response.headers.get('content-length') ?? '0');
        if (length > maxBytes) {
          await response.body?.cancel();
          throw new UpstreamError(`The orchestrator's agent listing is over ${maxBytes} bytes.`, {
            status: 502,
          });
        }
        text = await response.text();
      } catch (error) {
        if (error instanceof UpstreamError) throw error;
        if (timeout.aborted) {
          throw new UpstreamTimeoutError(
            `The orchestrator at ${orchestratorUrl} did not list its agents within ${timeoutMs} ms.`,
            { cause: error },
          );
        }
        if (signal?.aborted === true) throw error;
        throw new ServiceUnavailableError(
          `The orchestrator is not reachable at ${orchestratorUrl}: start the fleet with \`pnpm fleet up\`, or point ORCHESTRATOR_URL at it.`,
          { cause: error },
        );
      }
      if (response.status === 401) {
        throw new ServiceUnavailableError(
          'The orchestrator refused the internal token: the gateway and the orchestrator need the same FLEET_INTERNAL_TOKEN.',
        );
      }
      if (!response.ok || text.length > maxBytes) {
        throw new UpstreamError(
          `The orchestrator answered the agent listing with HTTP ${response.status}.`,
          { status: 502 },
        );
      }
      const parsed = safeParseJson({
        text,
        schema: agentListingSchema,
        subject: "The orchestrator's agent listing",
      });
      if (!parsed.success) {
        throw new UpstreamError(parsed.error.message, { status: 502, cause: parsed.error });
      }
      return parsed.value.agents;
    },
  };
}
