/** The Responses API endpoint: passthrough, and the agent routes answered in the Responses shape. */
export { createResponsesHandler } from './responses-route';
export { responsesChannel } from './responses-channel';
export {
  assertStatelessAgentRequest,
  responsesMessages,
  responsesRequestSchema,
  routableResponsesRequest,
} from './responses-request';
export type { ResponsesRequest } from './responses-request';
export type { FleetResponse, OutputItem, ResponseUsage } from './response-object';
export {
  readResponseObject,
  readResponseStream,
  traceResponsesPassthrough,
} from './trace-responses-passthrough';
export type {
  TracedResponse,
  TraceResponsesPassthroughOptions,
} from './trace-responses-passthrough';
