/**
 * Long-term memory per tenant and user: facts (name, company, job title, projects) and
 * preferences (tone, detail level, language) found in users' messages by an LLM extractor or,
 * offline, by rules; merged (newer wins, per key) and stored in Redis.
 */
export { createMemoryExtractor } from './create-memory-extractor';
export type {
  CreateMemoryExtractorOptions,
  Extraction,
  MemoryExtractor,
  MemoryExtractorLogger,
} from './create-memory-extractor';
export { describeMemory } from './describe-memory';
export { extractWithLlm, llmExtractionSchema } from './extract-with-llm';
export type { ExtractWithLlmOptions, LlmExtraction, MemoryLlm } from './extract-with-llm';
export { extractWithRules } from './extract-with-rules';
export { mayHoldMemory } from './may-hold-memory';
export { createMemoryStore } from './memory-store';
export type { CreateMemoryStoreOptions, MemoryStore, MemoryStoreLogger } from './memory-store';
export { mergeMemory } from './merge-memory';
export type { MergeMemoryOptions } from './merge-memory';
export {
  DEFAULT_USER_ID,
  MAX_PROJECTS,
  MAX_VALUE_LENGTH,
  emptyMemory,
  isEmptyUpdate,
  memoryEntrySchema,
  memoryFactsSchema,
  memoryPreferencesSchema,
  memorySourceSchema,
  projectsEntrySchema,
  userIdSchema,
  userMemorySchema,
} from './memory-schema';
export type {
  MemoryEntry,
  MemoryFacts,
  MemoryOwner,
  MemoryPreferences,
  MemorySource,
  MemoryUpdate,
  PreferenceKey,
  ProjectsEntry,
  SingleFactKey,
  UserMemory,
} from './memory-schema';
