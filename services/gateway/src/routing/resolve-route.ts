import { BadRequestError } from '@fleet/errors';

/** The values `X-Routing-Mode` accepts (docs/architecture.md §3). */
export const ROUTING_MODES = ['passthrough', 'reasoning', 'orchestration', 'auto'] as const;
export type RoutingMode = (typeof ROUTING_MODES)[number];

/**
 * The fleet's own model ids. Clients that cannot set headers pick a route by model instead; the
 * header wins when both are given.
 */
export const FLEET_MODELS: Readonly<Record<string, RoutingMode>> = {
  'fleet-orchestration': 'orchestration',
  'fleet-reasoning': 'reasoning',
  'fleet-auto': 'auto',
};

/** What a request asked for, before the body is read. */
export function parseRoutingHeader(value: string | undefined): RoutingMode | undefined {
  if (value === undefined) return undefined;
  const mode = value.trim().toLowerCase();
  if (mode === '') return undefined;
  if ((ROUTING_MODES as readonly string[]).includes(mode)) return mode as RoutingMode;
  throw new BadRequestError(
    `Unknown X-Routing-Mode '${value.slice(0, 64)}'. Allowed values: ${ROUTING_MODES.join(', ')}.`,
    { param: 'X-Routing-Mode', details: { allowed: [...ROUTING_MODES] } },
  );
}

/**
 * The route a request takes and, when it was not simply what the client asked, why. A union by
 * mode, so checking `mode` narrows it (e.g. to a decision that is not `auto` any more).
 */
export type RouteDecision = {
  [Mode in RoutingMode]: { mode: Mode; reason?: string };
}[RoutingMode];

/** The parts of a chat request routing looks at. */
export interface RoutableRequest {
  model: string;
  tools?: readonly unknown[] | null | undefined;
  response_format?: unknown;
}

/**
 * Decides the route: requests with `tools` or `response_format` always pass through (only the
 * upstream model can honour them); otherwise the header, then a fleet model id, then passthrough.
 */
export function resolveRoute(
  headerMode: RoutingMode | undefined,
  request: RoutableRequest,
): RouteDecision {
  const requested = headerMode ?? FLEET_MODELS[request.model];
  if (requested !== undefined && requested !== 'passthrough') {
    if (request.tools != null && request.tools.length > 0) {
      return {
        mode: 'passthrough',
        reason: 'tools present: only the upstream model can call them',
      };
    }
    if (request.response_format != null) {
      return {
        mode: 'passthrough',
        reason: 'response_format present: only the upstream model can honour it',
      };
    }
  }
  if (requested === undefined) return { mode: 'passthrough' };
  if (headerMode === undefined) return { mode: requested, reason: `model ${request.model}` };
  return { mode: requested };
}
