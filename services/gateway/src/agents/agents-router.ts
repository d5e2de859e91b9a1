import express, { type Request, type Response, type Router } from 'express';
import { ServiceUnavailableError } from '@fleet/errors';
import { getTenant } from '../auth';
import { ALL_TOOLS_PERMITTED, type ToolPermissions } from '../tool-permissions';
import { agentViews } from './agent-views';
import type { AgentsClient } from './agents-client';

/** What `GET /v1/agents` needs. */
export interface AgentsRouterOptions {
  /** The orchestrator's agent listing; undefined without FLEET_INTERNAL_TOKEN (503). */
  agents: AgentsClient | undefined;
  /** Each tenant's tool policy. @default every tool permitted */
  toolPermissions?: ToolPermissions | undefined;
}

/**
 * `GET /v1/agents` → `{ object: 'list', data: AgentView[] }`: the agents the orchestrator can plan
 * with now, as the caller's tenant sees them — the MCP tools its tool policy refuses left out
 * (GATEWAY_TOOL_PERMISSIONS), each agent with its availability, each skill with its tags, whether
 * a tool asks for approval and which MCP server and tool it is. Mounted on the authenticated `/v1`
 * router (401 without a key).
 *
 * @example
 * v1.use(agentsRouter({ agents, toolPermissions }));
 */
export function agentsRouter({
  agents,
  toolPermissions = ALL_TOOLS_PERMITTED,
}: AgentsRouterOptions): Router {
  const router = express.Router();
  router.get('/agents', async function listAgents(_req: Request, res: Response) {
    if (agents === undefined) {
      throw new ServiceUnavailableError(
        'Listing agents needs FLEET_INTERNAL_TOKEN, the token fleet services share; `pnpm fleet up` sets it.',
      );
    }
    // A caller that goes away stops the listing (the response closes before it is written).
    const controller = new AbortController();
    const abort = (): void => controller.abort();
    res.once('close', abort);
    try {
      const listed = await agents.list({ signal: controller.signal });
      const tenant = getTenant(res);
      res.json({ object: 'list', data: agentViews(listed, toolPermissions.policyFor(tenant)) });
    } finally {
      res.off('close', abort);
    }
  });
  return router;
}
