/** Long-term memory in a run: who the user is, read and extracted beside planning. */
export { readMemoryUser } from './read-memory-user';
export { composerProfile, startRunMemory } from './start-run-memory';
export type {
  MemoryServices,
  RunMemory,
  RunMemoryLogger,
  StartRunMemoryOptions,
} from './start-run-memory';
