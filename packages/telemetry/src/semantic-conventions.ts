import {
  OpenInferenceSpanKind,
  SEMRESATTRS_PROJECT_NAME,
  SemanticConventions,
} from '@arizeai/openinference-semantic-conventions';

/**
 * OpenInference span kinds (`openinference.span.kind`), which Phoenix uses to draw a span: a span
 * without one shows as UNKNOWN (docs/tracing.md §2). Values are plain strings, so `'CHAIN'` works
 * wherever `SpanKind.CHAIN` does.
 *
 * @example
 * await withSpan({ name: 'plan', kind: SpanKind.CHAIN, input: request }, async (span) => ...);
 */
export const SpanKind: {
  readonly [K in keyof typeof OpenInferenceSpanKind]: `${(typeof OpenInferenceSpanKind)[K]}`;
} = OpenInferenceSpanKind;

/** One of the {@link SpanKind} values. */
export type SpanKind = `${OpenInferenceSpanKind}`;

/**
 * Every OpenInference attribute key, e.g. `SemanticConventions.INPUT_VALUE` (`input.value`) or
 * `SemanticConventions.LLM_TOKEN_COUNT_TOTAL`, from `@arizeai/openinference-semantic-conventions`.
 */
export { SemanticConventions };

/** The keys services set most often, under short names. */
export const Attributes = {
  SPAN_KIND: SemanticConventions.OPENINFERENCE_SPAN_KIND,
  INPUT_VALUE: SemanticConventions.INPUT_VALUE,
  INPUT_MIME_TYPE: SemanticConventions.INPUT_MIME_TYPE,
  OUTPUT_VALUE: SemanticConventions.OUTPUT_VALUE,
  OUTPUT_MIME_TYPE: SemanticConventions.OUTPUT_MIME_TYPE,
  SESSION_ID: SemanticConventions.SESSION_ID,
  USER_ID: SemanticConventions.USER_ID,
  METADATA: SemanticConventions.METADATA,
  TAG_TAGS: SemanticConventions.TAG_TAGS,
  AGENT_NAME: SemanticConventions.AGENT_NAME,
  TOOL_NAME: SemanticConventions.TOOL_NAME,
  TOOL_DESCRIPTION: SemanticConventions.TOOL_DESCRIPTION,
  TOOL_PARAMETERS: SemanticConventions.TOOL_PARAMETERS,
  GRAPH_NODE_ID: SemanticConventions.GRAPH_NODE_ID,
  GRAPH_NODE_NAME: SemanticConventions.GRAPH_NODE_NAME,
  GRAPH_NODE_PARENT_ID: SemanticConventions.GRAPH_NODE_PARENT_ID,
  LLM_MODEL_NAME: SemanticConventions.LLM_MODEL_NAME,
  LLM_PROVIDER: SemanticConventions.LLM_PROVIDER,
  LLM_SYSTEM: SemanticConventions.LLM_SYSTEM,
  LLM_INVOCATION_PARAMETERS: SemanticConventions.LLM_INVOCATION_PARAMETERS,
  LLM_FINISH_REASON: SemanticConventions.LLM_FINISH_REASON,
  LLM_TOKEN_COUNT_PROMPT: SemanticConventions.LLM_TOKEN_COUNT_PROMPT,
  LLM_TOKEN_COUNT_COMPLETION: SemanticConventions.LLM_TOKEN_COUNT_COMPLETION,
  LLM_TOKEN_COUNT_TOTAL: SemanticConventions.LLM_TOKEN_COUNT_TOTAL,
  EMBEDDING_MODEL_NAME: SemanticConventions.EMBEDDING_MODEL_NAME,
  /**
   * The emitting service's name, copied onto every span by {@link startTelemetry}, because
   * Phoenix drops the `service.name` resource attribute (docs/tracing.md §0). Filter on it in Phoenix
   * with `attributes['service.name'] == 'planner'`-style queries.
   */
  SERVICE_NAME: 'service.name',
} as const;

/** The resource attribute Phoenix picks a trace's project from (`openinference.project.name`). */
export const PROJECT_NAME_RESOURCE_ATTRIBUTE = SEMRESATTRS_PROJECT_NAME;

/** The Phoenix project every service reports to unless told otherwise. */
export const DEFAULT_PROJECT_NAME = 'a2a-fleet';

/** The W3C baggage keys the fleet propagates and copies onto every span. */
export const BAGGAGE_KEYS = {
  SESSION_ID: 'session.id',
  USER_ID: 'user.id',
} as const;
