/** The reasoning route: the reasoning agent over A2A, answered in OpenAI's shape. */
export { answerReasoning } from './answer-reasoning';
export type {
  AnswerReasoningOptions,
  OpenAIUsage,
  ReasoningCompletion,
  ReasoningEventSource,
} from './answer-reasoning';
export { MAX_REASONING_HISTORY, reason } from './reason';
export type { ReasonOptions } from './reason';
