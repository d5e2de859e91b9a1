/** Composing the run's final answer from the steps' results (LLM, or offline from the agents' own answers). */
export {
  composeAnswer,
  composeOffline,
  describeStep,
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
  StepNaming,
} from './compose-answer';
export { fileLink, filesSection, fullFileLine } from './answer-files';
export { createCitationStream, localToGlobal } from './citation-stream';
export type { CitationStream, ResolveMarker } from './citation-stream';
export { renumberCitations, sourcesFromData } from './renumber-citations';
export type { CitedStep, RenumberedCitations } from './renumber-citations';
export {
  MAX_CELL_CHARS,
  MAX_CSV_BYTES,
  MAX_TABLE_COLUMNS,
  MAX_TABLE_ROWS,
  parseDelimited,
  renderTable,
  stepTables,
  tableFromData,
  tableFromFilePart,
} from './answer-tables';
export type { FilePartLike, StepTable } from './answer-tables';
