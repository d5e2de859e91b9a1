import { z } from 'zod';

/**
 * Long-term memory: what the fleet knows about one user of one tenant, as it is stored at
 * `fleet:memory:{tenant}:{user}` and shown by `GET /v1/memory`. Every field is bounded, so a
 * user's memory stays a few kilobytes whatever they say.
 */

/** Longest fact or preference value kept, in characters. */
export const MAX_VALUE_LENGTH = 120;

/** Most projects kept (the newest win). */
export const MAX_PROJECTS = 5;

/** A user id as clients send it (`user` field, `X-Fleet-User`): 1–128 printable characters. */
export const userIdSchema = z
  .string()
  .trim()
  .min(1, 'the user id must not be empty')
  .max(128, 'the user id must be at most 128 characters')
  .regex(/^[^\p{Cc}]+$/u, 'the user id must not contain control characters');

/** The user of a tenant's requests that name none (one per tenant). */
export const DEFAULT_USER_ID = 'default';

/** Whose memory: always the tenant of the API key, and a user within it. */
export interface MemoryOwner {
  tenant: string;
  user: string;
}

/** Where a value came from: the LLM extractor, the offline rules. */
export const memorySourceSchema = z.enum(['llm', 'rules']);
export type MemorySource = z.infer<typeof memorySourceSchema>;

const valueSchema = z.string().trim().min(1).max(MAX_VALUE_LENGTH);

/** One remembered value with where and when it was learnt (ISO time). */
export const memoryEntrySchema = z.object({
  value: valueSchema,
  source: memorySourceSchema,
  updatedAt: z.string(),
});
export type MemoryEntry = z.infer<typeof memoryEntrySchema>;

/** The projects the user mentioned, newest first, at most {@link MAX_PROJECTS}. */
export const projectsEntrySchema = z.object({
  value: z.array(valueSchema).min(1).max(MAX_PROJECTS),
  source: memorySourceSchema,
  updatedAt: z.string(),
});
export type ProjectsEntry = z.infer<typeof projectsEntrySchema>;

/** Personal facts. */
export const memoryFactsSchema = z.object({
  name: memoryEntrySchema.optional(),
  company: memoryEntrySchema.optional(),
  jobTitle: memoryEntrySchema.optional(),
  projects: projectsEntrySchema.optional(),
});
export type MemoryFacts = z.infer<typeof memoryFactsSchema>;

/** How the user likes answers. */
export const memoryPreferencesSchema = z.object({
  /** e.g. `formal`, `casual`, `friendly`. */
  tone: memoryEntrySchema.optional(),
  /** `brief` or `detailed`. */
  detailLevel: memoryEntrySchema.optional(),
  /** The language to answer in, e.g. `French`. */
  language: memoryEntrySchema.optional(),
});
export type MemoryPreferences = z.infer<typeof memoryPreferencesSchema>;

/** One user's memory. `updatedAt` is absent when nothing is known. */
export const userMemorySchema = z.object({
  facts: memoryFactsSchema.default({}),
  preferences: memoryPreferencesSchema.default({}),
  updatedAt: z.string().optional(),
});
export type UserMemory = z.infer<typeof userMemorySchema>;

/** The fact keys with a single value. */
export type SingleFactKey = 'name' | 'company' | 'jobTitle';
/** The preference keys. */
export type PreferenceKey = keyof MemoryPreferences;

/**
 * What an extractor found in one message: plain values, no provenance. Projects are added to
 * the known ones; every other key replaces what was known (newer wins, per key).
 */
export interface MemoryUpdate {
  facts: Partial<Record<SingleFactKey, string>> & { projects?: string[] };
  preferences: Partial<Record<PreferenceKey, string>>;
}

/** An empty memory. */
export function emptyMemory(): UserMemory {
  return { facts: {}, preferences: {} };
}

/** True when the update holds nothing. */
export function isEmptyUpdate(update: MemoryUpdate): boolean {
  return (
    Object.values(update.facts).every((value) =>
      Array.isArray(value) ? value.length === 0 : value === undefined,
    ) && Object.values(update.preferences).every((value) => value === undefined)
  );
}
