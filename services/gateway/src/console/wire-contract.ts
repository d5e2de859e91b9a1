import type * as Wire from '@fleet/console';
import type { AgentView } from '../agents/agent-views';
import type { DocumentView, UploadedDocumentView } from '../documents/documents-router';
import type { FileView } from '../files/files-router';
import type { MemoryView } from '../memory/memory-router';
import type {
  ApprovalView,
  InputView,
  ReviewView,
  SessionSummary,
  SessionView,
} from '../sessions/session-views';

/** `true` when every value of `A` is a value of `B`. */
type Fits<A, B> = [A] extends [B] ? true : false;

/**
 * The console (`@fleet/console`) reads the API's answers through its own plain types
 * (`packages/console/src/wire.ts`), since the browser bundle cannot import the gateway. This
 * constant only compiles while every view the gateway sends still fits what the console reads:
 * change a view, and `tsc` names the one that parted.
 */
export const CONSOLE_WIRE_CONTRACT: {
  sessionSummary: Fits<SessionSummary, Wire.SessionSummary>;
  sessionView: Fits<SessionView, Wire.SessionView>;
  approvalView: Fits<ApprovalView, Wire.ApprovalView>;
  inputView: Fits<InputView, Wire.InputView>;
  reviewView: Fits<ReviewView, Wire.ReviewView>;
  documentView: Fits<DocumentView, Wire.DocumentView>;
  uploadedDocumentView: Fits<UploadedDocumentView, Wire.DocumentView>;
  memoryView: Fits<MemoryView, Wire.MemoryView>;
  agentView: Fits<AgentView, Wire.AgentView>;
  fileView: Fits<FileView, Wire.FileView>;
} = {
  sessionSummary: true,
  sessionView: true,
  approvalView: true,
  inputView: true,
  reviewView: true,
  documentView: true,
  uploadedDocumentView: true,
  memoryView: true,
  agentView: true,
  fileView: true,
};
