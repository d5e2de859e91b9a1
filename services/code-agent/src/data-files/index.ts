/** The step's own files: read from its file parts, named safely, bounded, described for the model and the approval. */
export { cleanDataFileName } from './clean-data-file-name';
export {
  dataFileSummarySchema,
  describeDataFiles,
  headerLine,
  sameDataFiles,
  summarizeDataFiles,
} from './describe-data-files';
export type { DataFileSummary } from './describe-data-files';
export { DEFAULT_DATA_FILE_LIMITS, isFilePart, readDataFiles } from './read-data-files';
export type { DataFileLimits } from './read-data-files';
