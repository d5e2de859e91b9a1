/** Cited answers from web sources: written by the LLM, or extractive offline. */
export {
  answerWithLlm,
  renderWebAnswerPrompt,
  streamAnswerWithLlm,
  WEB_ANSWER_INSTRUCTIONS,
} from './answer-with-llm';
export type { AnswerWithLlmOptions } from './answer-with-llm';
export { composeExtractiveAnswer, contentWords, splitSentences } from './compose-extractive-answer';
export { createWebAnswerer } from './create-answerer';
export type { WebAnswerer, WebAnswerInput } from './create-answerer';
export { createCitationTidier, keepCitedSources } from './keep-cited-sources';
export { webSourceSchema } from './web-source';
export type { AnswerContext, SourceMaterial, WebAnswer, WebSource } from './web-source';
