/** The gateway's OpenAI wire conventions shared by its routes: streams, `[DONE]`, error bodies, JSON answers. */
export { createOpenAIStream, DONE_FRAME, renderOpenAIError } from './create-openai-stream';
export type { OpenAIStream, OpenAIStreamOptions } from './create-openai-stream';
export { sendJsonAnswer } from './send-json-answer';
export type { JsonAnswer } from './send-json-answer';
export { chatAnswerChannel } from './answer-channel';
export type {
  AnswerChannel,
  AnswerChannelFactory,
  ChatChunkLike,
  ChatCompletionLike,
  ChatUsage,
} from './answer-channel';
