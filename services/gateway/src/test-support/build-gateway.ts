import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { Redis } from 'ioredis';
import { silentLogger } from '@fleet/http';
import { OFFLINE_HINT } from '@fleet/llm';
import { createSessionStore, type SessionStore } from '@fleet/sessions';
import {
  startScriptedOpenAI,
  type ScriptedOpenAI,
  type ScriptedOpenAIOptions,
} from '@fleet/testing';
import { createApp, type AppDependencies } from '../app';
import { createUpstreamClient, type UpstreamClient } from '../upstream';

/** A key accepted by every gateway these helpers build (tenant `acme`). */
export const TEST_KEY = 'sk-test-acme-0123456789';
/** A second tenant's key. */
export const OTHER_KEY = 'sk-test-globex-0123456789';
/** The key the gateway presents upstream; never the client's. */
export const UPSTREAM_KEY = 'sk-upstream-secret';

/** Options for {@link buildGateway}. */
export interface BuildGatewayOptions {
  /** A scripted upstream (default), `offline`, or a URL nothing listens on. */
  upstream?: ScriptedOpenAIOptions | 'offline' | { unreachableUrl: string };
  timeoutMs?: number;
  bodyLimit?: number;
  overrides?: Partial<AppDependencies>;
  /** The session store to use (closed by `close()`). @default a new {@link createTestSessions} */
  sessions?: TestSessions;
}

/** Redis on loopback, as CONTRIBUTING.md requires for tests. */
export const TEST_REDIS_URL = 'redis://127.0.0.1:6379';

/** A session store on the real Redis under its own key prefixes, and its cleanup. */
export interface TestSessions {
  store: SessionStore;
  redis: Redis;
  /** The prefix every key of this store starts with. */
  prefix: string;
  /** Deletes every key under the prefix and closes the connections. */
  close(): Promise<void>;
}

/**
 * Creates a session store on the real Redis with a unique key prefix, so
 * tests never see each other's keys. `close()` removes them.
 */
export function createTestSessions(): TestSessions {
  const prefix = `test:gateway:${randomUUID()}`;
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const store = createSessionStore({
    redis,
    keyPrefix: `${prefix}:session`,
  });
  return {
    store,
    redis,
    prefix,
    async close() {
      await store.close();
      if (redis.status === 'ready') {
        const keys: string[] = [];
        let cursor = '0';
        do {
          const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
          cursor = next;
          keys.push(...batch);
        } while (cursor !== '0');
        if (keys.length > 0) await redis.del(...keys);
        await redis.quit();
      } else {
        redis.disconnect();
      }
    },
  };
}

/** A gateway app wired to a scripted upstream, for supertest. */
export interface TestGateway {
  app: RequestListener;
  /** Undefined for `offline` and unreachable upstreams. */
  llm: ScriptedOpenAI | undefined;
  /** The gateway's session store (real Redis, unique prefixes). */
  sessions: TestSessions;
  close(): Promise<void>;
}

/** Builds the gateway with `createApp` exactly as `main.ts` does, around a scripted upstream. */
export async function buildGateway({
  upstream = {},
  timeoutMs = 5_000,
  bodyLimit = 64 * 1024,
  overrides = {},
  sessions = createTestSessions(),
}: BuildGatewayOptions = {}): Promise<TestGateway> {
  let llm: ScriptedOpenAI | undefined;
  let upstreamClient: UpstreamClient | undefined;
  if (upstream !== 'offline') {
    if ('unreachableUrl' in upstream) {
      upstreamClient = createUpstreamClient({
        upstream: { baseURL: upstream.unreachableUrl, apiKey: UPSTREAM_KEY },
        timeoutMs,
        logger: silentLogger,
      });
    } else {
      llm = await startScriptedOpenAI(upstream);
      upstreamClient = createUpstreamClient({
        upstream: { baseURL: llm.baseURL, apiKey: UPSTREAM_KEY },
        timeoutMs,
        logger: silentLogger,
      });
    }
  }
  const app = createApp({
    apiKeys: [
      { key: TEST_KEY, tenant: 'acme' },
      { key: OTHER_KEY, tenant: 'globex' },
    ],
    upstreamClient,
    sessions: sessions.store,
    redis: sessions.redis,
    offlineReason: OFFLINE_HINT,
    bodyLimit,
    logger: silentLogger,
    metrics: false,
    ...overrides,
  });
  return {
    app,
    llm,
    sessions,
    async close() {
      upstreamClient?.close();
      await llm?.close();
      await sessions.close();
    },
  };
}
