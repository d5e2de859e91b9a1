import { Redis } from 'ioredis';
import { createMessage, RESULT_ARTIFACT_NAME, type Part, type Task } from '@fleet/a2a';
import { createHashedEmbedder } from '@fleet/llm';
import { createDocumentStore, createRunFileStore, migrate } from '../store';
import { openTestDatabase, type TestDatabase } from '../store/open-test-database';
import { bootRagAgent, type RunningRagAgent } from './boot-rag-agent';

const REDIS_URL = 'redis://127.0.0.1:6379';
const MIB = 1024 * 1024;

/** A RAG agent with a run file store, and what it runs on. */
export interface RunFileAgent {
  agent: RunningRagAgent;
  /** The agent's Redis (its task store lives under the key prefix). */
  redis: Redis;
  database: TestDatabase;
  /** Sends parts as one blocking message and resolves to the task. */
  send(parts: Part[]): Promise<Task>;
  /** Stops the agent, drops the database and the prefix's Redis keys. */
  close(): Promise<void>;
}

/**
 * Boots the RAG agent in-process with the service's defaults (25 MiB uploads, 16 MiB run files) and
 * a run file store on a test database whose clock is `now`.
 */
export async function bootRunFileAgent({
  keyPrefix,
  now,
}: {
  keyPrefix: string;
  now: () => number;
}): Promise<RunFileAgent> {
  const redis = new Redis(REDIS_URL);
  const database = await openTestDatabase();
  const embedder = createHashedEmbedder();
  await migrate(database.database.pool, {
    embeddingModel: embedder.model,
    dimensions: embedder.dimensions,
  });
  const agent = await bootRagAgent({
    redis,
    keyPrefix,
    store: createDocumentStore({ pool: database.database.pool }),
    embedder,
    maxUploadBytes: 25 * MIB,
    runFiles: createRunFileStore({ pool: database.database.pool, maxFileBytes: 16 * MIB, now }),
    maxRunFileBytes: 16 * MIB,
  });
  return {
    agent,
    redis,
    database,
    async send(parts) {
      return (await agent.client.sendMessage({ message: createMessage({ parts }) })) as Task;
    },
    async close() {
      await agent.close();
      await database.dispose();
      const keys = await redis.keys(`${keyPrefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    },
  };
}

/** The parts of a task's `result` artifact: its text, its data and its file part. */
export function resultOf(task: Task): {
  text: string | undefined;
  data: unknown;
  file: Part | undefined;
} {
  const parts = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME)?.parts ?? [];
  return {
    text: parts.find((part) => part.text !== undefined)?.text,
    data: parts.find((part) => part.data !== undefined)?.data,
    file: parts.find((part) => part.raw !== undefined),
  };
}
