/** The documents API at the gateway: multipart uploads, lists and deletes, served by the RAG agent over A2A. */
export { createDocumentsClient } from './documents-client';
export type { CreateDocumentsClientOptions, DocumentsClient } from './documents-client';
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
