import type { NextFunction, Request, Response } from 'express';
import type { HttpLogger } from '@fleet/http';
import { FLEET_MODELS } from '../routing';
import type { UpstreamClient, UpstreamModel } from '../upstream';

/** What the models route needs. */
export interface ModelsRouteOptions {
  upstreamClient: UpstreamClient | undefined;
  logger: HttpLogger;
  /** How long the upstream's list is reused. @default 60000 */
  cacheTtlMs?: number;
  /** Clock, for tests. @default Date.now */
  now?: () => number;
}

// 2026-01-01T00:00:00Z: a fixed creation time, so the fleet's entries are stable across restarts.
const FLEET_MODELS_CREATED = 1_767_225_600;

const fleetModels: UpstreamModel[] = Object.keys(FLEET_MODELS).map((id) => ({
  id,
  object: 'model',
  created: FLEET_MODELS_CREATED,
  owned_by: 'a2a-fleet',
}));

/**
 * `GET /v1/models`: the upstream's models plus the fleet's own entries (docs/architecture.md §3). The
 * upstream's list is cached briefly; when the upstream cannot answer, the fleet's entries are still
 * listed and `x-upstream-models: unavailable` says why the list is short.
 */
export function modelsRoute({
  upstreamClient,
  logger,
  cacheTtlMs = 60_000,
  now = Date.now,
}: ModelsRouteOptions) {
  let cached: { models: UpstreamModel[]; expiresAt: number } | undefined;

  async function upstreamModels(): Promise<UpstreamModel[] | undefined> {
    if (upstreamClient === undefined) return [];
    if (cached && cached.expiresAt > now()) return cached.models;
    try {
      const models = await upstreamClient.listModels();
      cached = { models, expiresAt: now() + cacheTtlMs };
      return models;
    } catch (error) {
      logger.warn({ err: error }, 'could not list the upstream models');
      return undefined;
    }
  }

  return async function listModels(
    _req: Request,
    res: Response,
    next: NextFunction,
  ): Promise<void> {
    try {
      const upstream = await upstreamModels();
      if (upstream === undefined) res.setHeader('x-upstream-models', 'unavailable');
      if (upstreamClient === undefined) res.setHeader('x-upstream-models', 'offline');
      res.json({ object: 'list', data: [...(upstream ?? []), ...fleetModels] });
    } catch (error) {
      next(error);
    }
  };
}
