/** The connection to the upstream LLM. */
export { createUpstreamClient } from './upstream-client';
export type {
  OnlineUpstream,
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamModel,
} from './upstream-client';
export type {
  ForwardChatCompletionOptions,
  ForwardObserver,
  ForwardOutcome,
} from './forward-chat-completion';
