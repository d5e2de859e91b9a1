import {
  MAX_PROJECTS,
  MAX_VALUE_LENGTH,
  type MemoryEntry,
  type MemorySource,
  type MemoryUpdate,
  type PreferenceKey,
  type SingleFactKey,
  type UserMemory,
} from './memory-schema';

/** Options for {@link mergeMemory}. */
export interface MergeMemoryOptions {
  /** What is known. */
  current: UserMemory;
  /** What was just learnt. */
  update: MemoryUpdate;
  source: MemorySource;
  /** @default new Date() */
  now?: Date;
}

const SINGLE_FACTS: readonly SingleFactKey[] = ['name', 'company', 'jobTitle'];
const PREFERENCES: readonly PreferenceKey[] = ['tone', 'detailLevel', 'language'];

/** Trims, folds whitespace and cuts to {@link MAX_VALUE_LENGTH}; undefined when empty. */
function clean(value: string | undefined): string | undefined {
  const text = value?.replace(/\s+/g, ' ').trim();
  if (text === undefined || text === '') return undefined;
  return text.length <= MAX_VALUE_LENGTH ? text : text.slice(0, MAX_VALUE_LENGTH).trimEnd();
}

/**
 * Merges what a message revealed into what is known: newer wins, per key; projects are added in
 * front of the known ones (case-insensitive duplicates dropped) and the list keeps the newest
 * {@link MAX_PROJECTS}. A value equal to the known one keeps its original entry. Pure.
 *
 * @example
 * mergeMemory({ current: emptyMemory(), update: { facts: { name: 'Ada' }, preferences: {} }, source: 'rules' });
 * // { facts: { name: { value: 'Ada', source: 'rules', updatedAt: '…' } }, preferences: {}, updatedAt: '…' }
 */
export function mergeMemory({
  current,
  update,
  source,
  now = new Date(),
}: MergeMemoryOptions): UserMemory {
  const updatedAt = now.toISOString();
  const facts = { ...current.facts };
  const preferences = { ...current.preferences };
  let changed = false;
  const entry = (value: string): MemoryEntry => ({ value, source, updatedAt });

  for (const key of SINGLE_FACTS) {
    const value = clean(update.facts[key]);
    if (value === undefined || facts[key]?.value === value) continue;
    facts[key] = entry(value);
    changed = true;
  }
  for (const key of PREFERENCES) {
    const value = clean(update.preferences[key]);
    if (value === undefined || preferences[key]?.value === value) continue;
    preferences[key] = entry(value);
    changed = true;
  }
  const added = (update.facts.projects ?? []).flatMap((project) => clean(project) ?? []);
  if (added.length > 0) {
    const seen = new Set<string>();
    const projects = [...added, ...(facts.projects?.value ?? [])]
      .filter((project) => {
        const key = project.toLowerCase();
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .slice(0, MAX_PROJECTS);
    const before = facts.projects?.value ?? [];
    if (projects.length !== before.length || projects.some((project, i) => project !== before[i])) {
      facts.projects = { value: projects, source, updatedAt };
      changed = true;
    }
  }
  if (!changed) return current;
  return { facts, preferences, updatedAt };
}
