/** The documents API at the gateway: multipart uploads, lists, downloads and deletes, served by the RAG agent over A2A. */
export { createDocumentsClient } from './documents-client';
export type {
  CreateDocumentsClientOptions,
  DocumentContent,
  DocumentsClient,
} from './documents-client';
export { cleanFilename, contentDisposition } from './content-disposition';
export { downloadHeaders } from './download-headers';
export type { DownloadHeaders } from './download-headers';
export { documentsRouter, toDocumentView } from './documents-router';
export type {
  DeletedDocumentView,
  DocumentsRouterOptions,
  DocumentView,
  UploadedDocumentView,
} from './documents-router';
export { describeByteSize } from '../limits';
export { readUpload, UPLOAD_FIELD } from './read-upload';
export type { ReadUploadOptions, Upload } from './read-upload';
export {
  documentSearchViewSchema,
  searchDocuments,
  searchDocumentsBodySchema,
} from './search-documents';
export type { DocumentSearchView } from './search-documents';
