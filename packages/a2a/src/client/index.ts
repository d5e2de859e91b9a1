/** The A2A v1.0 JSON-RPC client: card discovery, calls, SSE streams, typed errors. */
export { A2AClient, selectJsonRpcUrl } from './a2a-client';
export type {
  A2ACallOptions,
  A2AClientOptions,
  A2AClientTarget,
  SendMessageParams,
} from './a2a-client';
export { discoverAgentCard } from './discover-agent-card';
export type { DiscoverAgentCardOptions } from './discover-agent-card';
export { isOversizedSseEvent, parseSseStream } from './parse-sse-stream';
export type { ParseSseStreamOptions, SseEvent } from './parse-sse-stream';
export { createRunFilesClient, DEFAULT_MAX_READ_FILE_BYTES } from './run-files-client';
export { readInternalContent } from './read-internal-content';
export type { InternalContent, ReadInternalContentOptions } from './read-internal-content';
export { sendInternalRequest } from './send-internal-request';
export type { SendInternalRequestOptions } from './send-internal-request';
export type { CreateRunFilesClientOptions } from './run-files-client';
export { createTaskFailures, resultArtifactParts, typedFailure } from './task-failures';
export type { TaskCommand, TaskFailures, TaskFailureWording } from './task-failures';
