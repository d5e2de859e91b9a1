import { z } from 'zod';
import {
  createMessage,
  dataPart,
  findData,
  partsText,
  RESULT_ARTIFACT_NAME,
  type AgentCard,
  type DocumentsCommand,
  type Part,
  type Task,
} from '@fleet/a2a';
import { A2AClient } from '@fleet/a2a/client';
import type { AvailableAgent } from '../discovery';
import type { StepFiles, StepFilesResult } from './node-outcome';

/** The code agent's limit on the files of one step, in all (services/code-agent, data files). */
export const DEFAULT_STEP_FILES_MAX_BYTES = 4 * 1024 * 1024;

/** Options for {@link createStepFilesFetcher}. */
export interface StepFilesFetcherOptions {
  /** The agents discovered now: the documents agent is the one whose card manages documents. */
  availableAgents: () => Promise<AvailableAgent[]>;
  /** FLEET_INTERNAL_TOKEN, sent as the bearer token. */
  token: string;
  /** The most bytes the files of one step may have in all. @default 4 MiB */
  maxTotalBytes?: number;
  /** How long one `get` may take. @default 60000 */
  timeoutMs?: number;
}

/** The agent's error code on a failed task (`{ error: { code } }`). */
const failureDataSchema = z.looseObject({ error: z.looseObject({ code: z.string() }) });

/**
 * The agent that keeps the tenant's documents: a card skill tagged `documents` and `ingest` (the
 * RAG agent's "Manage documents" skill, which answers the documents command).
 */
export function documentsAgentOf(agents: readonly AvailableAgent[]): AvailableAgent | undefined {
  const manages = (card: AgentCard): boolean =>
    card.skills.some((skill) => skill.tags.includes('documents') && skill.tags.includes('ingest'));
  return agents.find((agent) => manages(agent.card));
}

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/**
 * The production {@link StepFiles}: reads each document a node names from the documents agent
 * (the RAG agent) with the documents command `get` by filename, for the run's tenant only, and
 * returns them as file parts (`raw`, `filename`, `mediaType`). A file the tenant does not have, or
 * files over `maxTotalBytes` in all, fail the node with which file and why (`task`); no documents
 * agent, or one that cannot answer, fails it as the fleet's (`fleet`).
 *
 * @example
 * const stepFiles = createStepFilesFetcher({ availableAgents: () => directory.availableAgents(), token });
 * await executePlan({ plan, invokeAgent, sessionId, tenant, stepFiles });
 */
export function createStepFilesFetcher({
  availableAgents,
  token,
  maxTotalBytes = DEFAULT_STEP_FILES_MAX_BYTES,
  timeoutMs = 60_000,
}: StepFilesFetcherOptions): StepFiles {
  const clients = new Map<string, A2AClient>();
  const clientFor = (agent: AvailableAgent): A2AClient => {
    let client = clients.get(agent.url);
    if (client === undefined || client.card !== agent.card) {
      client = new A2AClient({ card: agent.card, token, timeoutMs, maxRetries: 0 });
      clients.set(agent.url, client);
    }
    return client;
  };

  return async ({ node, tenant, signal }): Promise<StepFilesResult> => {
    const names = node.files ?? [];
    if (names.length === 0) return { status: 'ready', parts: [] };
    const agent = documentsAgentOf(await availableAgents());
    if (agent === undefined) {
      return {
        status: 'failed',
        error: `its files (${names.join(', ')}) could not be fetched: no agent that keeps documents (the RAG agent) is available`,
        failure: 'fleet',
      };
    }
    const client = clientFor(agent);
    const parts: Part[] = [];
    let total = 0;
    for (const filename of names) {
      const command: DocumentsCommand = { op: 'get', tenant, filename };
      let reply: Task;
      try {
        const answer = await client.sendMessage(
          { message: createMessage({ parts: [dataPart({ documents: command })] }) },
          { timeoutMs, ...(signal === undefined ? {} : { signal }) },
        );
        if (!('status' in answer)) throw new Error('it answered with a message, not a task');
        reply = answer;
      } catch (error) {
        return {
          status: 'failed',
          error: `the file "${filename}" could not be fetched from ${agent.name}: ${error instanceof Error ? error.message : String(error)}`,
          failure: 'fleet',
        };
      }
      if (reply.status.state !== 'TASK_STATE_COMPLETED') {
        const statusParts = reply.status.message?.parts ?? [];
        if (findData(statusParts, failureDataSchema)?.error.code === 'NOT_FOUND') {
          return {
            status: 'failed',
            error: `the file "${filename}" is not among the documents of tenant ${tenant} (upload it first, or check its name)`,
            failure: 'task',
          };
        }
        const why = partsText(statusParts).trim();
        return {
          status: 'failed',
          error: `the file "${filename}" could not be fetched from ${agent.name}: ${why === '' ? reply.status.state : why}`,
          failure: 'fleet',
        };
      }
      const file = reply.artifacts
        ?.find((artifact) => artifact.name === RESULT_ARTIFACT_NAME)
        ?.parts.find((part) => part.raw !== undefined);
      if (file?.raw === undefined) {
        return {
          status: 'failed',
          error: `the file "${filename}" could not be fetched from ${agent.name}: its answer carries no file`,
          failure: 'fleet',
        };
      }
      total += Buffer.byteLength(file.raw, 'base64');
      if (total > maxTotalBytes) {
        return {
          status: 'failed',
          error: `the file "${filename}" brings the step's files to ${mib(total)}, over the ${mib(maxTotalBytes)} a step may take in all`,
          failure: 'task',
        };
      }
      parts.push({
        raw: file.raw,
        filename,
        ...(file.mediaType === undefined ? {} : { mediaType: file.mediaType }),
      });
    }
    return { status: 'ready', parts };
  };
}
