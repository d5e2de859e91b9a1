/** Human approval helpers: how an approver's instructions apply, and a plan put into words for its approval. */
export { classifyInstructions, enhanceTask } from './classify-instructions';
export type {
  ClassifiedInstructions,
  ClassifierLlm,
  ClassifyInstructionsOptions,
} from './classify-instructions';
export { previewPlan, summarisePlan } from './describe-plan';
