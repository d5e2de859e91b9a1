/** The fleet's LLM access: upstream resolution, offline detection, the OpenAI client, structured output, embedders, and cited answers from numbered sources. */
export {
  answerWithSources,
  createCitationRenumberer,
  renderSourcesPrompt,
  renumberCitations,
  streamAnswerWithSources,
  withExtractiveFallback,
} from './answer-with-sources';
export type {
  AnswerContext,
  AnswerWithSourcesOptions,
  CitationRenumberer,
  CitationRenumbererOptions,
  StreamAnswerWithSourcesOptions,
  StreamedAnswer,
  NumberedSource,
  RenderSourcesPromptOptions,
  RenumberCitationsOptions,
  RenumberedCitations,
  WithExtractiveFallbackOptions,
} from './answer-with-sources';
export {
  createHashedEmbedder,
  DEFAULT_HASHED_DIMENSIONS,
  HASHED_EMBEDDING_MODEL,
} from './create-hashed-embedder';
export type { CreateHashedEmbedderOptions } from './create-hashed-embedder';
export { createLlmClient } from './create-llm-client';
export type { CreateLlmClientOptions } from './create-llm-client';
export { createOpenAIEmbedder, KNOWN_EMBEDDING_DIMENSIONS } from './create-openai-embedder';
export type { CreateOpenAIEmbedderOptions } from './create-openai-embedder';
export type { EmbedOptions, Embedder } from './embedder';
export { completeChat, toLlmMessage } from './complete-chat';
export { streamChat } from './stream-chat';
export type { StreamChatOptions, StreamChatResult } from './stream-chat';
export type { CompleteChatOptions, CompleteChatResult, TokenUsage } from './complete-chat';
export { generateObject } from './generate-object';
export type { GenerateObjectOptions, GenerateObjectResult } from './generate-object';
export { DEFAULT_OPENAI_BASE_URL, OFFLINE_HINT, resolveUpstream } from './resolve-upstream';
export type { ResolveUpstreamOptions, Upstream } from './resolve-upstream';
export { segmentSentences } from './segment-sentences';
export type { SegmentSentencesOptions } from './segment-sentences';
export { StructuredOutputError } from './structured-output-error';
export type { StructuredOutputErrorOptions } from './structured-output-error';
export { toLlmError } from './to-llm-error';
export { toStrictJsonSchema } from './to-strict-json-schema';
export type { JsonSchema, StrictJsonSchema } from './to-strict-json-schema';
export { createUsageMeter, emptyUsage, recordFailedCall, recordUsage } from './usage-meter';
export type { MeteredUsage, UsageMeter } from './usage-meter';
export { splitQuestion } from './split-question';
export type { SplitQuestionOptions } from './split-question';
export { currentDateLine, systemClock, type Clock } from './current-date-line';
