/** Document ingestion and management: parse, chunk, describe, embed and store a tenant's files. */
export { createDocumentService, toDocumentInfo } from './create-document-service';
export type {
  CreateDocumentServiceOptions,
  DocumentOriginal,
  DocumentSelector,
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
export { DOC_TYPE_MEDIA_TYPES, originalMediaType } from './original-media-type';
