import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import type { AgentListing } from '@fleet/a2a';
import { UnauthenticatedError } from '@fleet/errors';
import type { AvailableAgent } from './agent-directory';

/** The path of the agent listing. */
export const AGENTS_PATH = '/internal/agents';

/** Options for {@link agentsRouter}. */
export interface AgentsRouterOptions {
  /** The agents discovery knows now (`directory.availableAgents()`). */
  availableAgents: () => Promise<AvailableAgent[]>;
  /** FLEET_INTERNAL_TOKEN: the listing requires it. */
  internalToken: string;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * `GET /internal/agents` (bearer internal token; 401 otherwise): the agents the orchestrator can
 * plan with now, as `agentListingSchema` of `@fleet/a2a` — each agent's summary (name,
 * description, availability, skills with their tags: what the planner sees, before any tenant's
 * tool policy) and base URL. The gateway's `GET /v1/agents` applies the caller's tool policy to
 * it. `Cache-Control: no-store`: discovery keeps it fresh.
 *
 * @example
 * app.use(agentsRouter({ availableAgents: () => directory.availableAgents(), internalToken }));
 */
export function agentsRouter({ availableAgents, internalToken }: AgentsRouterOptions): Router {
  const router = Router();
  const expected = digest(internalToken);
  router.get(AGENTS_PATH, async function listAgents(req, res) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    // Constant time, over digests so that lengths leak nothing either.
    if (!timingSafeEqual(digest(match?.[1] ?? ''), expected) || match === null) {
      res.setHeader('www-authenticate', 'Bearer');
      throw new UnauthenticatedError(
        'The agent listing needs Authorization: Bearer <internal token>.',
      );
    }
    const agents = await availableAgents();
    const listing: AgentListing = {
      agents: agents.map((agent) => ({ ...agent.summary, url: agent.url })),
    };
    res.setHeader('cache-control', 'no-store');
    res.json(listing);
  });
  return router;
}
