/** The reasoning agent's tools: safe arithmetic, the clock and date differences. */
export { calculate, CALCULATOR_NAMES, formatNumber, MAX_EXPRESSION_LENGTH } from './calculate';
export { currentTime, isTimeZone } from './current-time';
export type { CurrentTime } from './current-time';
export { dateDiff } from './date-diff';
export type { DateDiff } from './date-diff';
export { createReasoningTools } from './reasoning-tools';
export type {
  BuiltInTool,
  CreateReasoningToolsOptions,
  ReasoningTool,
  ToolRunOptions,
} from './reasoning-tools';
export { CalculationError, ToolError } from './tool-error';
