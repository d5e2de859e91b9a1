import { cleanRunFileName, type Part, type RunFile, type RunFileStore } from '@fleet/a2a';
import { FleetError } from '@fleet/errors';
import type { StepFiles, StepFilesResult } from './node-outcome';

/** Options for {@link withAttachments}. */
export interface AttachmentStepFilesOptions {
  /** The fleet's file store, where the attachments' bytes are. */
  store: RunFileStore | undefined;
  /** The files the request brought (source `attachment`), as the run keeps them. */
  attachments: () => readonly RunFile[];
  /** The tenant's documents, for the names that are not attachments. @default none */
  documents?: StepFiles | undefined;
}

/** The attachment a node's file name names: by its kept name, or by the name cleaned the same way. */
function attachmentNamed(attachments: readonly RunFile[], name: string): RunFile | undefined {
  return (
    attachments.find((file) => file.name === name) ??
    attachments.find((file) => file.name === cleanRunFileName(name, name))
  );
}

/**
 * The {@link StepFiles} of a run: each name in a node's `files` is first looked up among the run's
 * attachments (the request's files, read back from the file store), and only the rest among the
 * tenant's documents (`documents`, the RAG agent). An attachment gone from the store (expired)
 * fails the node as its task's; a store that cannot be reached, as the fleet's.
 *
 * @example
 * const stepFiles = withAttachments({ store, attachments: () => keeper.files(), documents });
 */
export function withAttachments({
  store,
  attachments,
  documents,
}: AttachmentStepFilesOptions): StepFiles {
  return async ({ node, tenant, signal }): Promise<StepFilesResult> => {
    const names = node.files ?? [];
    const own = attachments().filter((file) => file.source === 'attachment');
    const parts: Part[] = [];
    const others: string[] = [];
    for (const name of names) {
      const file = attachmentNamed(own, name);
      if (file === undefined || store === undefined) {
        others.push(name);
        continue;
      }
      try {
        const read = await store.get({ tenant, id: file.id, signal });
        parts.push({
          raw: read.bytes.toString('base64'),
          filename: read.file.name,
          mediaType: read.file.mediaType,
        });
      } catch (error) {
        const gone = FleetError.isInstance(error) && error.code === 'NOT_FOUND';
        return {
          status: 'failed',
          error: gone
            ? `the attached file "${file.name}" is no longer kept (it expired)`
            : `the attached file "${file.name}" could not be read from the file store: ${error instanceof Error ? error.message : String(error)}`,
          failure: gone ? 'task' : 'fleet',
        };
      }
    }
    if (others.length === 0) return { status: 'ready', parts };
    if (documents === undefined) {
      return {
        status: 'failed',
        error: `its files (${others.join(', ')}) are not among the files attached to the request`,
        failure: 'task',
      };
    }
    const rest = await documents({ node: { ...node, files: others }, tenant, signal });
    return rest.status === 'ready' ? { status: 'ready', parts: [...parts, ...rest.parts] } : rest;
  };
}
