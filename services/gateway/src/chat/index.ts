/** The chat completions endpoint, and the routing and passthrough tracing it shares with `/v1/responses`. */
export { createChatCompletionsHandler } from './chat-completions-route';
export type { ChatCompletionsOptions } from './chat-completions-route';
export { chatCompletionRequestSchema } from './chat-completion-request';
export type { ChatCompletionRequest } from './chat-completion-request';
export { messageText } from './message-text';
export { RESUME_HEADERS, routeRequest } from './route-request';
export type { RequestApi, RoutedRequest } from './route-request';
export {
  eventPayloads,
  numberOf,
  objectOf,
  parseOrUndefined,
  stringOf,
  traceForwardedAnswer,
} from './trace-passthrough';
export type { TraceForwardedAnswerOptions } from './trace-passthrough';
