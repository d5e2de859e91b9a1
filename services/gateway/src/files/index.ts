/** Run files at the gateway: the Files API (`/v1/files`) and the attachments requests bring. */
export {
  collectAttachments,
  DEFAULT_MAX_ATTACHMENT_BYTES,
  DEFAULT_MAX_ATTACHMENTS,
  resolveAttachments,
} from './attachments';
export type { AttachmentLimits, AttachmentRef, AttachmentSources } from './attachments';
export { filesRouter, runFileHeaders, toFileObject, toFileView } from './files-router';
export type { FileObjectView, FilesRouterOptions, FileView } from './files-router';
