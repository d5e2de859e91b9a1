/** X-Routing-Mode parsing, the routing decision, and the `auto` classifier. */
export { FLEET_MODELS, ROUTING_MODES, parseRoutingHeader, resolveRoute } from './resolve-route';
export type { RoutableRequest, RouteDecision, RoutingMode } from './resolve-route';
export { classifierAnswerSchema, createRouteClassifier } from './classify-route';
export type {
  ClassifiableMessage,
  ClassifierAnswer,
  ClassifierLlmClient,
  ClassifyRouteInput,
  RouteClassification,
  RouteClassifier,
  RouteClassifierOptions,
  RouteSource,
} from './classify-route';
export { AUTO_ROUTES, heuristicRoute } from './heuristic-route';
export type { AutoRoute, AutoRouteChoice, HeuristicRouteOptions } from './heuristic-route';
export { createRouteCache } from './route-cache';
export type { RouteCache, RouteCacheOptions } from './route-cache';
