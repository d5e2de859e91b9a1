/** The model list. */
export { modelsRoute } from './models-route';
export type { ModelsRouteOptions } from './models-route';
