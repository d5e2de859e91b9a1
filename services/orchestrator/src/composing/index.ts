/** Composing the run's final answer from the steps' results (LLM, or offline from the agents' own answers). */
export {
  composeAnswer,
  composeOffline,
  failedStepsParagraph,
  sourcesSection,
  stepsNotDoneParagraph,
} from './compose-answer';
export type {
  ComposeAnswerOptions,
  ComposedAnswer,
  ComposeOfflineOptions,
  ComposerLlm,
  ComposerLogger,
  ComposerProfile,
  ComposeStep,
} from './compose-answer';
export { renumberCitations, sourcesFromData } from './renumber-citations';
export type { CitedStep, RenumberedCitations } from './renumber-citations';
