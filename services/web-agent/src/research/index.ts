/** The research loop: choose a mode, search, read the top pages, answer with citations. */
export { createResearcher } from './create-researcher';
export type {
  CreateResearcherOptions,
  PageReport,
  ReportedResult,
  Research,
  Researcher,
  ResearchRequest,
  ResearchStage,
} from './create-researcher';
export { chooseMode, deriveQuery, urlsIn } from './derive-query';
export type { ResearchMode } from './derive-query';
