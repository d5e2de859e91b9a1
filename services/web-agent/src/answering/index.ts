/** Cited answers from web sources: written by the LLM, or extractive offline. */
export { answerWithLlm, renderWebAnswerPrompt, WEB_ANSWER_INSTRUCTIONS } from './answer-with-llm';
export type { AnswerWithLlmOptions } from './answer-with-llm';
export { composeExtractiveAnswer, contentWords, splitSentences } from './compose-extractive-answer';
export { createWebAnswerer } from './create-answerer';
export type { WebAnswerer } from './create-answerer';
export { keepCitedSources } from './keep-cited-sources';
export { webSourceSchema } from './web-source';
export type { AnswerContext, SourceMaterial, WebAnswer, WebSource } from './web-source';
