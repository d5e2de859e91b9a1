/** X-Routing-Mode parsing and the routing decision. */
export { FLEET_MODELS, ROUTING_MODES, parseRoutingHeader, resolveRoute } from './resolve-route';
export type { RoutableRequest, RouteDecision, RoutingMode } from './resolve-route';
