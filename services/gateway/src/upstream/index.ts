/** The connection to the upstream LLM. */
export { createUpstreamClient } from './upstream-client';
export type {
  ForwardChatCompletionOptions,
  ForwardObserver,
  ForwardOutcome,
  OnlineUpstream,
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamModel,
} from './upstream-client';
