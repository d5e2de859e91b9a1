/** Answers from retrieved chunks: LLM-written with `[n]` citations, or extractive offline. */
export type { Answer } from './answer';
export {
  ANSWER_INSTRUCTIONS,
  answerWithLlm,
  renderAnswerPrompt,
  streamAnswerWithLlm,
} from './answer-with-llm';
export type { AnswerContext, AnswerWithLlmOptions } from './answer-with-llm';
export { composeExtractiveAnswer, emptyAnswerText } from './compose-extractive-answer';
export type { ComposeExtractiveAnswerOptions } from './compose-extractive-answer';
export { createAnswerer } from './create-answerer';
export type {
  Answerer,
  AnswererLogger,
  AnswerInput,
  CreateAnswererOptions,
} from './create-answerer';
export { groupSources, keepCitedSources, keepSourcesCited, sourceTitle } from './group-sources';
export type { GroupedSources } from './group-sources';
export { answerChunkSchema, answerSourceSchema } from './answer-schemas';
export type { AnswerChunk, AnswerSource } from './answer-schemas';
