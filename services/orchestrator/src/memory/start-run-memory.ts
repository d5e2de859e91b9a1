import {
  describeMemory,
  emptyMemory,
  extractWithRules,
  isEmptyUpdate,
  mergeMemory,
  type MemoryExtractor,
  type MemoryOwner,
  type MemoryStore,
  type UserMemory,
} from '@fleet/memory';

/** What the orchestrator's long-term memory is built from (`main.ts`). */
export interface MemoryServices {
  store: MemoryStore;
  extractor: MemoryExtractor;
}

/** Logging the run's memory needs. */
export interface RunMemoryLogger {
  warn(object: object, message?: string): void;
  debug(object: object, message?: string): void;
}

/** One run's view of the user's long-term memory. */
export interface RunMemory {
  /** Resolves once the stored memory was read (a Redis GET started before planning). Never rejects. */
  loaded: Promise<void>;
  /**
   * The memory as sentences, right now, without waiting: what was stored before this request
   * plus what the rules see in the request, or — once the extractor's result is merged and
   * stored — that. Node inputs take it when each node starts.
   */
  lines(): string[];
  /**
   * Resolves with the memory after this request's extraction was merged and stored (what the
   * composer uses). Never rejects: a failure leaves the memory as it was loaded.
   */
  settled: Promise<UserMemory>;
}

/** Options for {@link startRunMemory}. */
export interface StartRunMemoryOptions {
  services: MemoryServices;
  owner: MemoryOwner;
  /** The user's request; undefined for a resumed run (its request was read when it started). */
  message: string | undefined;
  logger: RunMemoryLogger;
  /** Added to log lines. */
  log: Record<string, unknown>;
}

/**
 * Starts a run's memory work at once and in the background, so it adds no latency: the stored
 * memory is read and the request's facts are extracted (LLM or rules) while the planner plans;
 * the extraction is merged into the store as soon as it is known. {@link RunMemory.lines} is
 * always answerable without waiting; {@link RunMemory.settled} is what the composer awaits.
 *
 * @example
 * const memory = startRunMemory({ services, owner: { tenant, user }, message: request, logger, log });
 * await memory.loaded;            // before node inputs are built (done long before planning ends)
 * memory.lines();                 // in each node input
 * const known = await memory.settled; // before composing
 */
export function startRunMemory({
  services,
  owner,
  message,
  logger,
  log,
}: StartRunMemoryOptions): RunMemory {
  const { store, extractor } = services;
  let snapshot: UserMemory = emptyMemory();
  let final = false;
  // Rules cost nothing: the current request's facts reach node inputs even before the extractor.
  const rules = message === undefined ? undefined : extractWithRules(message);

  const loadedMemory = store.get(owner).then(
    (stored) => {
      if (!final) {
        snapshot =
          rules === undefined || isEmptyUpdate(rules)
            ? stored
            : mergeMemory({ current: stored, update: rules, source: 'rules' });
      }
      return stored;
    },
    (error: unknown) => {
      logger.warn({ ...log, err: error }, 'could not read the user’s memory');
      return emptyMemory();
    },
  );

  const settled: Promise<UserMemory> =
    message === undefined
      ? loadedMemory.then(() => snapshot)
      : extractor
          .extract({ message, user: owner.user })
          .then(async (extraction) => {
            if (isEmptyUpdate(extraction.update)) return loadedMemory;
            const stored = await store.merge(owner, {
              update: extraction.update,
              source: extraction.method,
            });
            logger.debug(
              { ...log, method: extraction.method, facts: Object.keys(extraction.update.facts) },
              'remembered facts from the request',
            );
            return stored;
          })
          .then(
            (memory) => {
              final = true;
              snapshot = memory;
              return memory;
            },
            async (error: unknown) => {
              logger.warn({ ...log, err: error }, 'could not update the user’s memory');
              await loadedMemory;
              return snapshot;
            },
          );

  return {
    loaded: loadedMemory.then(() => undefined),
    lines: () => describeMemory(snapshot),
    settled,
  };
}

/**
 * The composer's view of a memory: its sentences, the user's name and preferred detail level.
 *
 * @example
 * composeAnswer({ request, steps, llm, profile: composerProfile(await memory.settled) });
 */
export function composerProfile(memory: UserMemory): {
  lines: string[];
  name?: string | undefined;
  detailLevel?: string | undefined;
} {
  return {
    lines: describeMemory(memory),
    name: memory.facts.name?.value,
    detailLevel: memory.preferences.detailLevel?.value,
  };
}
