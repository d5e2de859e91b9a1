/**
 * Test-only helpers: a scripted OpenAI-compatible server, an OTLP capture server, service boot
 * helpers, and agents built only on `@a2a-js/sdk` (agents the fleet did not write).
 */
export { startScriptedOpenAI } from './openai/start-scripted-openai';
export type {
  RecordedRequest,
  RespondFunction,
  ScriptedOpenAI,
  ScriptedOpenAIOptions,
} from './openai/start-scripted-openai';
export type {
  ScriptedError,
  ScriptedReply,
  ScriptedStreamError,
  ScriptedToolCall,
} from './openai/scripted-reply';
export type { ChatRequestContext } from './openai/chat-request';
export { DEFAULT_EMBEDDING_DIMENSIONS, embeddingToBase64, embedText } from './openai/embed-text';
export type { EmbedTextOptions } from './openai/embed-text';
export { openAIErrorEnvelope, openAIErrorType } from './openai/openai-error-envelope';
export type {
  OpenAIErrorEnvelope,
  OpenAIErrorEnvelopeOptions,
} from './openai/openai-error-envelope';
export { sampleJsonSchema } from './openai/sample-json-schema';
export { startOtlpCapture } from './otlp/start-otlp-capture';
export type { CapturedExport, OtlpCapture, OtlpCaptureOptions } from './otlp/start-otlp-capture';
export type { CapturedSpan, CapturedSpanEvent, CapturedSpanLink } from './otlp/captured-span';
export { decodeOtlpJson } from './otlp/decode-otlp-json';
export { decodeOtlpProtobuf } from './otlp/decode-otlp-protobuf';
export { getFreePort } from './process/get-free-port';
export { startProcess } from './process/start-process';
export type { RunningProcess, StartProcessOptions } from './process/start-process';
export {
  SCRIPTED_OPENAI_BIN,
  startScriptedOpenAIProcess,
} from './process/start-scripted-openai-process';
export type {
  ScriptedOpenAIProcess,
  ScriptedOpenAIProcessOptions,
} from './process/start-scripted-openai-process';
export { startScriptedAgent } from './agents/start-scripted-agent';
export type {
  ScriptedAgent,
  ScriptedAgentOptions,
  ScriptedAgentReply,
  ScriptedAgentRequest,
  ScriptedSideEffect,
  ScriptedSkill,
} from './agents/start-scripted-agent';
export { servicePrefix, startService } from './process/start-service';
export type { RunningService, StartServiceOptions } from './process/start-service';
export { createRecordingTracer } from './tracing/create-recording-tracer';
export type { RecordedSpan } from './tracing/create-recording-tracer';
export { startSdkAgent } from './sdk-agents/start-sdk-agent';
export type {
  SdkAgent,
  SdkAgentRequest,
  SdkSkill,
  StartSdkAgentOptions,
} from './sdk-agents/start-sdk-agent';
export {
  BILLS_AGENT_CARD,
  createInvoiceExecutor,
  INVOICE_AGENT_CARD,
} from './sdk-agents/invoice-executor';
export type {
  InvoiceDecision,
  InvoiceExecutor,
  InvoiceExecutorOptions,
  InvoicePayment,
} from './sdk-agents/invoice-executor';
export { createQuestionExecutor, TRAVEL_AGENT_CARD } from './sdk-agents/question-executor';
export type {
  QuestionAnswer,
  QuestionExecutor,
  QuestionExecutorOptions,
} from './sdk-agents/question-executor';
export {
  createShapesExecutor,
  SHAPE_SKILLS,
  SHAPE_TEXTS,
  SHAPES_AGENT_CARD,
} from './sdk-agents/shapes-executor';
export type { ReplyShape } from './sdk-agents/shapes-executor';
export {
  artifactEvent,
  messageEvent,
  sdkData,
  sdkText,
  statusEvent,
  taskSnapshot,
} from './sdk-agents/sdk-events';
export type { SdkTaskState, TurnIds, WirePart } from './sdk-agents/sdk-events';
export { findLocalImage, startPostgresContainer } from './process/start-postgres-container';
export type {
  FindLocalImageOptions,
  LocalContainerImage,
  LocalImageLookup,
  PostgresContainer,
  StartPostgresContainerOptions,
} from './process/start-postgres-container';
export { startRedisServer } from './process/start-redis-server';
export type {
  RedisStop,
  StartRedisServerOptions,
  TestRedisServer,
} from './process/start-redis-server';
export { startRedisCluster } from './process/start-redis-cluster';
export type { StartRedisClusterOptions, TestRedisCluster } from './process/start-redis-cluster';
export { startRedisSentinel } from './process/start-redis-sentinel';
export type { StartRedisSentinelOptions, TestRedisSentinel } from './process/start-redis-sentinel';
export { createMemoryRunFileStore } from './files/create-memory-run-file-store';
export type {
  MemoryRunFileStore,
  MemoryRunFileStoreOptions,
} from './files/create-memory-run-file-store';
export { decodePng } from './files/decode-png';
export type { DecodedPng } from './files/decode-png';
export { encodePng } from './files/encode-png';
export type { EncodePngOptions } from './files/encode-png';
export {
  CHART_AGENT_CARD,
  CHART_AGENT_TEXT,
  createChartExecutor,
  defaultChartFiles,
} from './sdk-agents/chart-executor';
export type { ChartExecutorOptions, ChartFile } from './sdk-agents/chart-executor';
export { createAnswerExecutor } from './sdk-agents/answer-executor';
export type {
  AnswerExecutor,
  AnswerExecutorOptions,
  AnswerReply,
  AnswerTask,
} from './sdk-agents/answer-executor';
