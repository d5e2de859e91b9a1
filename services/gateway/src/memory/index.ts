/** Long-term memory at the gateway: whose memory a request is about, and `GET`/`DELETE /v1/memory`. */
export { memoryRouter } from './memory-router';
export type { MemoryRouterOptions, MemoryView } from './memory-router';
export { MEMORY_USER_HEADER, resolveMemoryUser } from './resolve-memory-user';
export type { ResolveMemoryUserOptions } from './resolve-memory-user';
