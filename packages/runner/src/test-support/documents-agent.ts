import { createHash, randomUUID } from 'node:crypto';
import {
  documentsCommandSchema,
  findData,
  type DocumentInfo,
  type DocumentsCommand,
} from '@fleet/a2a';
import { startScriptedAgent, type ScriptedAgent } from '@fleet/testing';

/** The token the stand-in requires. */
export const DOCUMENTS_AGENT_TOKEN = 'runner-test-internal-token-0123456789';

/** One documents command the stand-in received. */
export interface DocumentsAgentCall {
  command: DocumentsCommand;
  filename: string | undefined;
  mediaType: string | undefined;
  bytes: Buffer;
}

/** A running stand-in for the RAG agent's documents commands. */
export interface DocumentsAgent {
  url: string;
  calls: DocumentsAgentCall[];
  close(): Promise<void>;
}

/**
 * A small A2A agent (`@fleet/testing`'s scripted agent) playing the RAG agent's side of the
 * documents contract for `ingest`: one chunk per line, the same bytes twice answer
 * `duplicate: true`, a file whose text starts with `BROKEN` fails the task with the agent's
 * message, as a parser error would, and a file whose text starts with `HUGE` is stored cut short
 * (`truncated` with the agent's warning, as a row or page limit would).
 */
export async function startDocumentsAgent(): Promise<DocumentsAgent> {
  const calls: DocumentsAgentCall[] = [];
  const stored = new Map<string, DocumentInfo>();
  const agent: ScriptedAgent = await startScriptedAgent({
    name: 'rag-agent',
    internalToken: DOCUMENTS_AGENT_TOKEN,
    respond: ({ message }) => {
      const command = findData(message.parts, documentsCommandSchema)?.documents;
      const file = message.parts.find((part) => part.raw !== undefined);
      if (command === undefined || command.op !== 'ingest' || file === undefined) {
        return { fail: 'expected an ingest command with a file' };
      }
      const bytes = Buffer.from(file.raw ?? '', 'base64');
      calls.push({ command, filename: file.filename, mediaType: file.mediaType, bytes });
      const filename = file.filename ?? 'unnamed';
      if (bytes.toString('utf8').startsWith('BROKEN')) {
        return { fail: `Cannot index "${filename}": the file is damaged.` };
      }
      const key = `${command.tenant}:${createHash('sha256').update(bytes).digest('hex')}`;
      const existing = stored.get(key);
      if (existing !== undefined) {
        return { text: 'unchanged', data: { documents: [{ ...existing, duplicate: true }] } };
      }
      const extension = filename.split('.').pop() ?? '';
      const document: DocumentInfo = {
        id: randomUUID(),
        filename,
        docType: extension === 'csv' ? 'csv' : extension === 'md' ? 'md' : 'txt',
        chunks: bytes.toString('utf8').split('\n').filter(Boolean).length,
        description: '',
        createdAt: new Date().toISOString(),
        ...(bytes.toString('utf8').startsWith('HUGE')
          ? {
              truncated: true,
              warnings: ['only the first 2 of 9 rows were indexed (RAG_MAX_ROWS)'],
            }
          : {}),
      };
      stored.set(key, document);
      return { text: 'stored', data: { documents: [{ ...document, duplicate: false }] } };
    },
  });
  return { url: agent.url, calls, close: () => agent.close() };
}
