import type { Redis } from 'ioredis';
import type OpenAI from 'openai';
import type { Part } from '@fleet/a2a';
import { bootAgent, nodeParts as kitNodeParts, type BootedAgent } from '@fleet/agent-kit/testing';
import type { WithSpanOptions } from '@fleet/telemetry';
import { createWebHandler } from '../agent';
import { createWebAnswerer } from '../answering';
import {
  createHostAllowlist,
  createPageFetcher,
  type PageReader,
  type ResolveHost,
} from '../fetching';
import { createResearcher } from '../research';
import type { SearchProvider } from '../search';

/** The token test agents require. */
export const TEST_TOKEN = 'web-agent-test-token-0123456789';

/** A web agent listening on a free port, with a client that carries the token. */
export type RunningWebAgent = BootedAgent;

/** Options for {@link bootWebAgent}. */
export interface BootWebAgentOptions {
  redis: Redis;
  keyPrefix: string;
  provider: SearchProvider | undefined;
  /** WEB_FETCH_ALLOWLIST. @default ['127.0.0.1'] (the fake web) */
  allowlist?: string[];
  resolveHost?: ResolveHost;
  llm?: { client: OpenAI; model: string } | undefined;
  tracer?: WithSpanOptions['tracer'];
  fetchPages?: number;
  /** How pages are read; `createPageReader` for the worker pool, as `main.ts` wires it. @default the calling thread */
  pageReader?: PageReader;
}

/** Boots the web agent service in-process, as `main.ts` does, on 127.0.0.1 and a free port. */
export function bootWebAgent({
  redis,
  keyPrefix,
  provider,
  allowlist = ['127.0.0.1'],
  resolveHost,
  llm,
  tracer,
  fetchPages,
  pageReader,
}: BootWebAgentOptions): Promise<RunningWebAgent> {
  const researcher = createResearcher({
    provider,
    fetchPage: createPageFetcher({
      allowlist: createHostAllowlist(allowlist),
      timeoutMs: 5_000,
      ...(resolveHost === undefined ? {} : { resolveHost }),
    }),
    answerer: createWebAnswerer({ llm, tracer }),
    ...(fetchPages === undefined ? {} : { fetchPages }),
    ...(pageReader === undefined ? {} : { pageReader }),
    tracer,
  });
  return bootAgent({
    serviceName: 'web-agent',
    redis,
    keyPrefix,
    token: TEST_TOKEN,
    createHandler: ({ store, url }) => createWebHandler({ researcher, store, url, tracer }),
  });
}

/** The parts of a plan node message: the task and the fleet node input. */
export function nodeParts(options: {
  question: string;
  skill?: string;
  tenant?: string;
  dependencyOutputs?: Record<string, { agent: string; summary: string; partial?: boolean }>;
}): Part[] {
  return kitNodeParts({
    text: options.question,
    nodeId: 'web',
    ...(options.skill === undefined ? {} : { skill: options.skill }),
    ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
    ...(options.dependencyOutputs === undefined
      ? {}
      : { dependencyOutputs: options.dependencyOutputs }),
  });
}
