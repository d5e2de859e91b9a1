/** The chat completions endpoint. */
export { createChatCompletionsHandler } from './chat-completions-route';
export type { ChatCompletionsOptions } from './chat-completions-route';
export { chatCompletionRequestSchema } from './chat-completion-request';
export type { ChatCompletionRequest } from './chat-completion-request';
export { messageText } from './message-text';
