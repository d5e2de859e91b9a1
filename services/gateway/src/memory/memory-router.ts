import express, { type Request, type Response, type Router } from 'express';
import { addLogFields } from '@fleet/http';
import type { MemoryStore, UserMemory } from '@fleet/memory';
import { getActiveSpan, setSessionAttributes } from '@fleet/telemetry';
import { getTenant } from '../auth';
import { resolveMemoryUser } from './resolve-memory-user';

/** What the memory API needs. */
export interface MemoryRouterOptions {
  store: MemoryStore;
}

/** `GET /v1/memory`'s body. */
export interface MemoryView {
  object: 'memory';
  user: string;
  facts: UserMemory['facts'];
  preferences: UserMemory['preferences'];
  /** When anything was last learnt; null when nothing is known. */
  updatedAt: string | null;
}

function ownerOf(req: Request, res: Response): { tenant: string; user: string } {
  const tenant = getTenant(res);
  const user = resolveMemoryUser({ req });
  addLogFields(res, { memoryUser: user });
  setSessionAttributes(getActiveSpan(), { userId: user });
  return { tenant, user };
}

/**
 * The long-term memory API (docs/memory.md), mounted on the authenticated `/v1` router. The
 * tenant is the API key's; the user is `X-Fleet-User` (the tenant's default user without it), so
 * one tenant can never read or erase another's memory, even with the same user id.
 *
 * - `GET /memory` → `{ object: 'memory', user, facts, preferences, updatedAt }` (empty facts and
 *   preferences, `updatedAt: null`, when nothing is known).
 * - `DELETE /memory` → erases it: 200 `{ object: 'memory.deleted', user, deleted: true }`.
 *
 * @example
 * v1.use(memoryRouter({ store: createMemoryStore({ redis }) }));
 */
export function memoryRouter({ store }: MemoryRouterOptions): Router {
  const router = express.Router();

  router.get('/memory', async function getMemory(req: Request, res: Response) {
    const owner = ownerOf(req, res);
    const memory = await store.get(owner);
    const view: MemoryView = {
      object: 'memory',
      user: owner.user,
      facts: memory.facts,
      preferences: memory.preferences,
      updatedAt: memory.updatedAt ?? null,
    };
    res.json(view);
  });

  router.delete('/memory', async function deleteMemory(req: Request, res: Response) {
    const owner = ownerOf(req, res);
    await store.delete(owner);
    res.json({ object: 'memory.deleted', user: owner.user, deleted: true });
  });

  return router;
}
