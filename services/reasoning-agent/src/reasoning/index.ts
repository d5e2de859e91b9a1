/** The reasoning loop: model calls with tools, visible steps, budgets. */
export { describeStep } from './describe-step';
export { reasoningStepSchema, reasoningUsageSchema, stopReasonSchema } from './reasoning-step';
export type {
  ReasoningEvent,
  ReasoningOutcome,
  ReasoningStep,
  ReasoningUsage,
  StopReason,
} from './reasoning-step';
export { LAST_STEP_NOTE, REASONING_INSTRUCTIONS, runReasoning } from './run-reasoning';
export type { RunReasoningOptions } from './run-reasoning';
export {
  attachmentContent,
  DEFAULT_MAX_ATTACHMENT_BYTES,
  DEFAULT_MAX_ATTACHMENTS,
  describeAttachment,
  MAX_ATTACHMENT_TEXT_BYTES,
  readAttachments,
} from './attachments';
export type { Attachment, AttachmentLimits } from './attachments';
