/**
 * What OpenInference's masking settings hide (the `OPENINFERENCE_HIDE_*` variables of the
 * OpenInference configuration spec; docs/tracing.md §6). Every flag defaults to false.
 */
export interface TraceHideConfig {
  /** `input.value` becomes `__REDACTED__` (no mime type); input messages are left out. */
  hideInputs?: boolean | undefined;
  /** `output.value` becomes `__REDACTED__` (no mime type); output messages are left out. */
  hideOutputs?: boolean | undefined;
  /** `llm.input_messages.*` are left out. */
  hideInputMessages?: boolean | undefined;
  /** `llm.output_messages.*` are left out. */
  hideOutputMessages?: boolean | undefined;
  /** The content of input messages becomes `__REDACTED__` (roles, names and tool calls stay). */
  hideInputText?: boolean | undefined;
  /** The content of output messages becomes `__REDACTED__`. */
  hideOutputText?: boolean | undefined;
  /** `llm.invocation_parameters` is left out. */
  hideLlmInvocationParameters?: boolean | undefined;
}

/** What a hidden value is replaced with, as OpenInference's own instrumentations write it. */
export const REDACTED_VALUE = '__REDACTED__';

let processHideConfig: Readonly<TraceHideConfig> = {};

/** Sets the process-wide masking used by the span helpers ({@link startTelemetry} calls it). */
export function setTraceHideConfig(config: TraceHideConfig): void {
  processHideConfig = { ...config };
}

/** The process-wide masking (see {@link setTraceHideConfig}). */
export function getTraceHideConfig(): Readonly<TraceHideConfig> {
  return processHideConfig;
}
