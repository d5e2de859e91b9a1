import { type Attributes, type Span } from '@opentelemetry/api';
import { SemanticConventions } from '@arizeai/openinference-semantic-conventions';
import { serializeValue, toJsonString, truncateText } from './internal/serialize-value';
import { Attributes as Keys } from './semantic-conventions';
import { getTraceHideConfig, REDACTED_VALUE } from './internal/trace-config';

/** Per-call cap on serialised values. */
export interface ValueLengthOptions {
  /** Longest serialised value kept, in characters; longer ones are cut and marked. @default 32768 */
  maxValueLength?: number | undefined;
}

/**
 * Sets `input.value` and `input.mime_type` (`text/plain` for strings, `application/json`
 * otherwise). Does nothing when the span is not recording. {@link withSpan} calls it for you; use
 * it directly on spans you did not start, such as the HTTP server span at the gateway, which is
 * the root Phoenix's Sessions view reads.
 *
 * @example
 * setSpanInput(trace.getActiveSpan(), lastUserMessage);
 */
export function setSpanInput(
  span: Span | undefined,
  value: unknown,
  options: ValueLengthOptions = {},
): void {
  setValue({
    span,
    value,
    options,
    keys: [Keys.INPUT_VALUE, Keys.INPUT_MIME_TYPE],
    hidden: getTraceHideConfig().hideInputs === true,
  });
}

/**
 * Sets `output.value` and `output.mime_type`, like {@link setSpanInput} does for the input.
 *
 * @example
 * setSpanOutput(span, { answer, citations });
 */
export function setSpanOutput(
  span: Span | undefined,
  value: unknown,
  options: ValueLengthOptions = {},
): void {
  setValue({
    span,
    value,
    options,
    keys: [Keys.OUTPUT_VALUE, Keys.OUTPUT_MIME_TYPE],
    hidden: getTraceHideConfig().hideOutputs === true,
  });
}

/** One chat message, as OpenAI shapes it. */
export interface LlmMessage {
  role: string;
  content?: string | null;
  /** The participant or function name. */
  name?: string | undefined;
  /** For `role: 'tool'` messages: the call they answer. */
  toolCallId?: string | undefined;
  toolCalls?: readonly LlmToolCall[] | undefined;
}

/** One tool call an assistant message asks for. */
export interface LlmToolCall {
  id?: string | undefined;
  /** The function name. */
  name: string;
  /** The arguments: a JSON string as OpenAI sends it, or an object, which is serialised. */
  arguments?: unknown;
}

/** Token usage of one LLM call. Phoenix adds these up per trace, on LLM spans only. */
export interface LlmTokenCounts {
  prompt?: number | undefined;
  completion?: number | undefined;
  /** @default prompt + completion, when both are given */
  total?: number | undefined;
}

/** What {@link setLlmAttributes} records. Every field is optional, so it can be called twice. */
export interface LlmAttributes extends ValueLengthOptions {
  /** `llm.model_name`. */
  model?: string | undefined;
  /** `llm.provider`, e.g. `openai`, `ollama`. */
  provider?: string | undefined;
  /** `llm.system`, e.g. `openai`. */
  system?: string | undefined;
  /** `llm.invocation_parameters` (a JSON string), e.g. `{ temperature: 0 }`. */
  invocationParameters?: Readonly<Record<string, unknown>> | undefined;
  inputMessages?: readonly LlmMessage[] | undefined;
  outputMessages?: readonly LlmMessage[] | undefined;
  tokenCounts?: LlmTokenCounts | undefined;
  /** `llm.finish_reason`, e.g. `stop`, `length`, `tool_calls`. */
  finishReason?: string | undefined;
}

/**
 * Records an LLM call the way Phoenix renders it: model, provider, invocation parameters,
 * messages flattened as `llm.input_messages.N.message.role|content|...` (tool calls under
 * `...message.tool_calls.K.tool_call.function.name|arguments`) and integer token counts. Call it
 * again after a stream ends to add the output and token counts (streamed OpenAI calls report no
 * usage unless asked, docs/tracing.md §2).
 *
 * @example
 * await withSpan({ name: 'llm.chat', kind: SpanKind.LLM, input: messages }, async (span) => {
 *   const completion = await client.chat.completions.create({ model, messages });
 *   setLlmAttributes(span, {
 *     model,
 *     provider: 'openai',
 *     inputMessages: messages,
 *     outputMessages: [{ role: 'assistant', content: completion.choices[0]?.message.content }],
 *     tokenCounts: { prompt: usage.prompt_tokens, completion: usage.completion_tokens },
 *   });
 * });
 */
export function setLlmAttributes(span: Span | undefined, llm: LlmAttributes): void {
  if (span === undefined || !span.isRecording()) return;
  const { maxValueLength } = llm;
  const hide = getTraceHideConfig();
  const attributes: Attributes = {};
  if (llm.model !== undefined) attributes[Keys.LLM_MODEL_NAME] = llm.model;
  if (llm.provider !== undefined) attributes[Keys.LLM_PROVIDER] = llm.provider;
  if (llm.system !== undefined) attributes[Keys.LLM_SYSTEM] = llm.system;
  if (llm.finishReason !== undefined) attributes[Keys.LLM_FINISH_REASON] = llm.finishReason;
  if (llm.invocationParameters !== undefined && hide.hideLlmInvocationParameters !== true) {
    attributes[Keys.LLM_INVOCATION_PARAMETERS] = toJsonString(
      llm.invocationParameters,
      maxValueLength,
    );
  }
  // Hidden messages are never serialised: masking is also the cheapest setting.
  if (
    llm.inputMessages !== undefined &&
    hide.hideInputs !== true &&
    hide.hideInputMessages !== true
  ) {
    addMessages({
      attributes,
      prefix: SemanticConventions.LLM_INPUT_MESSAGES,
      messages: llm.inputMessages,
      maxValueLength,
      hideText: hide.hideInputText === true,
    });
  }
  if (
    llm.outputMessages !== undefined &&
    hide.hideOutputs !== true &&
    hide.hideOutputMessages !== true
  ) {
    addMessages({
      attributes,
      prefix: SemanticConventions.LLM_OUTPUT_MESSAGES,
      messages: llm.outputMessages,
      maxValueLength,
      hideText: hide.hideOutputText === true,
    });
  }
  if (llm.tokenCounts !== undefined) addTokenCounts(attributes, llm.tokenCounts);
  span.setAttributes(attributes);
}

/** One retrieved document. */
export interface RetrievalDocument {
  id?: string | number | undefined;
  content?: string | undefined;
  /** Relevance score (a float). */
  score?: number | undefined;
  /** Recorded as a JSON string, which Phoenix parses. */
  metadata?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Records retrieved documents as `retrieval.documents.N.document.id|content|score|metadata`, which
 * Phoenix shows on RETRIEVER spans.
 *
 * @example
 * setRetrievalDocuments(span, chunks.map((chunk) => ({ id: chunk.id, content: chunk.text, score: chunk.score })));
 */
export function setRetrievalDocuments(
  span: Span | undefined,
  documents: readonly RetrievalDocument[],
  options: ValueLengthOptions = {},
): void {
  if (span === undefined || !span.isRecording()) return;
  const { maxValueLength } = options;
  const attributes: Attributes = {};
  documents.forEach((document, index) => {
    const prefix = `${SemanticConventions.RETRIEVAL_DOCUMENTS}.${index}`;
    if (document.id !== undefined) {
      attributes[`${prefix}.${SemanticConventions.DOCUMENT_ID}`] = String(document.id);
    }
    if (document.content !== undefined) {
      attributes[`${prefix}.${SemanticConventions.DOCUMENT_CONTENT}`] = truncateText(
        document.content,
        maxValueLength,
      );
    }
    if (document.score !== undefined && Number.isFinite(document.score)) {
      attributes[`${prefix}.${SemanticConventions.DOCUMENT_SCORE}`] = document.score;
    }
    if (document.metadata !== undefined) {
      attributes[`${prefix}.${SemanticConventions.DOCUMENT_METADATA}`] = toJsonString(
        document.metadata,
        maxValueLength,
      );
    }
  });
  span.setAttributes(attributes);
}

/** Session and user ids for {@link setSessionAttributes}. */
export interface SessionAttributes {
  sessionId?: string | undefined;
  userId?: string | undefined;
}

/**
 * Sets `session.id` and `user.id` on one span. Phoenix groups a trace into a session when any of
 * its spans carries `session.id`; to put the ids on every later span in every service, use
 * {@link withBaggage} as well.
 *
 * @example
 * setSessionAttributes(trace.getActiveSpan(), { sessionId, userId: tenant });
 */
export function setSessionAttributes(span: Span | undefined, session: SessionAttributes): void {
  if (span === undefined || !span.isRecording()) return;
  if (session.sessionId !== undefined) span.setAttribute(Keys.SESSION_ID, session.sessionId);
  if (session.userId !== undefined) span.setAttribute(Keys.USER_ID, session.userId);
}

function setValue({
  span,
  value,
  options,
  keys: [valueKey, mimeTypeKey],
  hidden,
}: {
  span: Span | undefined;
  value: unknown;
  options: ValueLengthOptions;
  keys: readonly [string, string];
  hidden: boolean;
}): void {
  if (span === undefined || !span.isRecording() || value === undefined) return;
  if (hidden) {
    span.setAttribute(valueKey, REDACTED_VALUE);
    return;
  }
  const serialized = serializeValue(value, options.maxValueLength);
  span.setAttributes({ [valueKey]: serialized.text, [mimeTypeKey]: serialized.mimeType });
}

function addMessages({
  attributes,
  prefix,
  messages,
  maxValueLength,
  hideText,
}: {
  attributes: Attributes;
  prefix: string;
  messages: readonly LlmMessage[];
  maxValueLength: number | undefined;
  hideText: boolean;
}): void {
  messages.forEach((message, index) => {
    const base = `${prefix}.${index}`;
    attributes[`${base}.${SemanticConventions.MESSAGE_ROLE}`] = message.role;
    if (message.content != null) {
      attributes[`${base}.${SemanticConventions.MESSAGE_CONTENT}`] = hideText
        ? REDACTED_VALUE
        : truncateText(message.content, maxValueLength);
    }
    if (message.name !== undefined) {
      attributes[`${base}.${SemanticConventions.MESSAGE_NAME}`] = message.name;
    }
    if (message.toolCallId !== undefined) {
      attributes[`${base}.${SemanticConventions.MESSAGE_TOOL_CALL_ID}`] = message.toolCallId;
    }
    message.toolCalls?.forEach((toolCall, callIndex) => {
      const callBase = `${base}.${SemanticConventions.MESSAGE_TOOL_CALLS}.${callIndex}`;
      if (toolCall.id !== undefined) {
        attributes[`${callBase}.${SemanticConventions.TOOL_CALL_ID}`] = toolCall.id;
      }
      attributes[`${callBase}.${SemanticConventions.TOOL_CALL_FUNCTION_NAME}`] = toolCall.name;
      if (toolCall.arguments !== undefined) {
        attributes[`${callBase}.${SemanticConventions.TOOL_CALL_FUNCTION_ARGUMENTS_JSON}`] =
          toJsonString(toolCall.arguments, maxValueLength);
      }
    });
  });
}

function addTokenCounts(attributes: Attributes, counts: LlmTokenCounts): void {
  const prompt = toTokenCount(counts.prompt);
  const completion = toTokenCount(counts.completion);
  const total =
    toTokenCount(counts.total) ??
    (prompt !== undefined && completion !== undefined ? prompt + completion : undefined);
  if (prompt !== undefined) attributes[Keys.LLM_TOKEN_COUNT_PROMPT] = prompt;
  if (completion !== undefined) attributes[Keys.LLM_TOKEN_COUNT_COMPLETION] = completion;
  if (total !== undefined) attributes[Keys.LLM_TOKEN_COUNT_TOTAL] = total;
}

/** Phoenix sums token counts only when they are integers (docs/tracing.md §2). */
function toTokenCount(value: number | undefined): number | undefined {
  if (value === undefined || !Number.isFinite(value) || value < 0) return undefined;
  return Math.round(value);
}
