import { readFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import type { RunningService } from '@fleet/testing';
import {
  E2E_INTERNAL_TOKEN,
  startFleet,
  type FleetServiceName,
  type RunningFleet,
} from '../../support/start-fleet';

/** The fuzz suite's own API key and tenant, so its sessions and memories touch no other test's. */
export const FUZZ_KEY = 'sk-fuzz-0123456789abcdef';
export const FUZZ_TENANT = 'fuzz';

/** The scripted agent that asks for approval on every task (nobody ever grants it). */
export const APPROVING_AGENT = 'ledger-agent';

/** The scripted agent that asks a question on every task. */
export const ASKING_AGENT = 'travel-agent';

/**
 * How long a person has to decide (HITL_TIMEOUT_SECONDS): short, so a non-streamed request that
 * waits for an approval nobody gives answers within the request bound instead of after 120 s.
 */
export const FUZZ_HITL_SECONDS = 3;

/** Every service process of the fuzzed fleet. */
export const FUZZED_SERVICES: readonly FleetServiceName[] = [
  'gateway',
  'orchestrator',
  'planner',
  'rag-agent',
  'web-agent',
  'mail-agent',
  'code-agent',
  'reasoning-agent',
];

/** A service process that exited while it was being fuzzed, and what it was sent last. */
export interface Death {
  service: FleetServiceName;
  pid: number;
  code: number | null;
  /** The last request sent to any service before the exit was seen. */
  lastRequest: string;
  /** The tail of the process's output. */
  output: string;
}

/** The fleet under fuzz, with what the invariants need about its processes. */
export interface FuzzFleet {
  fleet: RunningFleet;
  service(name: FleetServiceName): RunningService;
  /** Exits seen so far (a service is restarted after one, so the run can go on and shrink). */
  deaths: Death[];
  /** Notes the request about to be sent, for {@link Death.lastRequest}. */
  sending(description: string): void;
  /**
   * The services that exited since the last call (waits `graceMs` first, since a crash may come
   * just after the response), each restarted on its port. Empty when all are alive.
   */
  takeDeaths(graceMs?: number): Promise<Death[]>;
  stop(): Promise<void>;
}

/**
 * Deletes the fuzz tenant's sessions from the fleet's Redis (`REDIS_URL`, which the services
 * inherit, else 127.0.0.1:6379 as they use it): they keep each request's text for days, and a
 * listing reads them, so what one run leaves would slow the next. Only the `fuzz` tenant's keys
 * are touched.
 */
export async function deleteFuzzSessions(): Promise<number> {
  const redis = new Redis(process.env['REDIS_URL'] || 'redis://127.0.0.1:6379', {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
  try {
    await redis.connect();
    // The session store's keys (@fleet/sessions `sessionKeys()`).
    const index = `fleet:{tenant:${FUZZ_TENANT}}:sessions`;
    const ids = await redis.zrange(index, 0, -1);
    for (let at = 0; at < ids.length; at += 100) {
      await redis.del(...ids.slice(at, at + 100).map((id) => `fleet:{${id}}:session`));
    }
    if (ids.length > 0) {
      await redis.srem('fleet:{sessions}:active', ...ids);
      await redis.hdel('fleet:{sessions}:pending-approvals', ...ids);
    }
    await redis.del(index, `fleet:{tenant:${FUZZ_TENANT}}:pending-approvals`);
    return ids.length;
  } finally {
    redis.disconnect();
  }
}

/** VmRSS of a process in KiB, from `/proc/<pid>/status`; undefined when it cannot be read. */
export async function rssKiB(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

/**
 * Boots the whole fleet offline, each service its own process: gateway, orchestrator, planner
 * (heuristic), the real RAG, web, mail, code and reasoning agents, and two scripted agents (one
 * always asks for approval, one always asks a question). No upstream LLM: passthrough and reasoning answer 503 by design.
 */
export async function startFuzzFleet(): Promise<FuzzFleet> {
  const fleet = await startFleet({
    agents: [
      {
        name: APPROVING_AGENT,
        description: 'Pays invoices and moves money in the ledger (asks for approval first).',
        skills: [{ id: 'payments', tags: ['invoice', 'payment', 'pay', 'ledger', 'money'] }],
        reply: { approval: { action: 'pay-invoice', summary: 'Pay an invoice', risk: 'high' } },
      },
      {
        name: ASKING_AGENT,
        description: 'Books trips and flights (asks which date first).',
        skills: [{ id: 'travel', tags: ['travel', 'trip', 'flight', 'book', 'hotel'] }],
        reply: { question: 'Which date do you want to travel?' },
      },
    ],
    ragAgent: true,
    agentServices: {
      // The hostile-pages property serves its pages on loopback; reading stops within the bound.
      'web-agent': { WEB_FETCH_ALLOWLIST: '127.0.0.1', WEB_READ_TIMEOUT_MS: '4000' },
      'mail-agent': {},
      'code-agent': {},
      'reasoning-agent': {},
    },
    serviceEnv: {
      // Tenant limits (docs/limits.md) are off: the fuzzer sends far more than a tenant's
      // default requests per minute and leaves many runs waiting for a person.
      gateway: { GATEWAY_API_KEYS: `${FUZZ_KEY}:${FUZZ_TENANT}`, GATEWAY_LIMITS: 'false' },
      orchestrator: { NODE_TIMEOUT_MS: '20000', HITL_TIMEOUT_SECONDS: String(FUZZ_HITL_SECONDS) },
      // Reading a hostile document stops well within the request bound (a 413 naming it).
      'rag-agent': { RAG_PARSE_TIMEOUT_MS: '4000' },
    },
  });
  const deaths: Death[] = [];
  let lastRequest = '(none yet)';
  const watched = new Map<FleetServiceName, RunningService>();
  const pending: Death[] = [];
  const watch = (name: FleetServiceName, service: RunningService): void => {
    watched.set(name, service);
    void service.process.exited.then((code) => {
      if (watched.get(name) !== service) return;
      const death: Death = {
        service: name,
        pid: service.process.pid,
        code,
        lastRequest,
        output: service.process.output().slice(-3000),
      };
      deaths.push(death);
      pending.push(death);
    });
  };
  for (const name of FUZZED_SERVICES) {
    const service = fleet.services[name];
    if (service === undefined) throw new Error(`the fuzz fleet has no ${name}`);
    watch(name, service);
  }
  return {
    fleet,
    service: (name) => {
      const service = fleet.services[name];
      if (service === undefined) throw new Error(`no service ${name}`);
      return service;
    },
    deaths,
    sending: (description) => {
      lastRequest = description;
    },
    takeDeaths: async (graceMs = 0) => {
      if (graceMs > 0) await new Promise((resolve) => setTimeout(resolve, graceMs));
      const taken = pending.splice(0);
      for (const death of taken) {
        try {
          watch(death.service, await fleet.crashAndRestart(death.service));
        } catch (error) {
          process.stderr.write(`fuzz: could not restart ${death.service}: ${String(error)}\n`);
        }
      }
      return taken;
    },
    stop: async () => {
      watched.clear();
      await fleet.stop();
    },
  };
}

/** The internal token A2A endpoints need (re-exported for the A2A properties). */
export { E2E_INTERNAL_TOKEN };
