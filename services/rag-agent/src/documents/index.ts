/** Document ingestion and management: parse, chunk, describe, embed and store a tenant's files. */
export { createDocumentService, toDocumentInfo } from './create-document-service';
export type {
  CreateDocumentServiceOptions,
  DocumentService,
  DocumentServiceLogger,
  DocumentUpload,
} from './create-document-service';
export {
  describeDocument,
  OFFLINE_DESCRIPTION_LENGTH,
  openingDescription,
} from './describe-document';
export type { DescribeDocumentOptions } from './describe-document';
export { formatBytes } from './format-bytes';
