/** The RAG agent as an A2A agent: its card, input reading, execute function, handler and result shapes. */
export { createRagHandler } from './create-rag-handler';
export type { CreateRagHandlerOptions } from './create-rag-handler';
export { createRagAgent } from './rag-agent';
export type { CreateRagAgentOptions } from './rag-agent';
export { buildRagCard, RAG_AGENT_VERSION, RAG_SKILLS } from './rag-card';
export type { BuildRagCardOptions, RagSkill } from './rag-card';
export { decodeFilePart, MAX_QUESTION_CHARS, readRagInput } from './read-rag-input';
export type { FilePart, RagInput, RunFilePart } from './read-rag-input';
export {
  answerResultDataSchema,
  documentsResultDataSchema,
  errorDataSchema,
  filesResultDataSchema,
  filterReportSchema,
  queryFiltersSchema,
  searchResultDataSchema,
} from './result-data';
export type {
  AnswerResultData,
  DocumentsResultData,
  ErrorData,
  FilesResultData,
  FilterReportData,
  SearchResultData,
} from './result-data';
