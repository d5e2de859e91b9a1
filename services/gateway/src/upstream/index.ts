/** The connection to the upstream LLM. */
export { createUpstreamClient } from './upstream-client';
export type {
  OnlineUpstream,
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamModel,
} from './upstream-client';
export type { ForwardObserver, ForwardOutcome, ForwardRequestOptions } from './forward-request';
export type { UpstreamEndpoint } from './upstream-connection';
