import { randomUUID } from 'node:crypto';
import {
  completed,
  plural,
  resultChunk,
  resultEnd,
  working,
  type AgentEvents,
} from '@fleet/agent-kit';
import type { AgentEvent } from '@fleet/a2a/server';
import { actionCriteria, listMessages, streamSummary, type ChosenAction } from '../actions';
import type { SearchResult } from '../mail';
import { needMailbox, type MailAgentSettings } from './mail-agent-settings';
import { chosenData, mailSource, type SearchResultData } from './result-data';

/** Options for {@link runSearch}. */
export interface RunSearchOptions {
  /** The task, for the summary. */
  task: string;
  chosen: ChosenAction;
  signal: AbortSignal;
}

/**
 * The answer text: the LLM's summary of the matches, sent as chunks of the `result` artifact
 * `artifactId` while it is written, else their list (no chunk).
 */
async function* describeFound(
  { llm, logger }: MailAgentSettings,
  found: SearchResult,
  { task, signal, artifactId }: RunSearchOptions & { artifactId: string },
): AsyncGenerator<
  AgentEvent,
  { text: string; summarisedBy: SearchResultData['summarisedBy'] },
  undefined
> {
  const heading = `Found ${plural(found.total, 'message')} in ${found.mailbox}${found.total > found.messages.length ? ` (the newest ${found.messages.length} shown)` : ''}:`;
  const list = `${heading}\n${listMessages(found.messages)}`;
  if (llm === undefined) return { text: list, summarisedBy: 'list' };
  try {
    const summary = streamSummary({ llm, task, messages: found.messages, signal });
    let next = await summary.next();
    while (next.done !== true) {
      yield resultChunk(artifactId, next.value);
      next = await summary.next();
    }
    return { text: next.value, summarisedBy: 'llm' };
  } catch (error) {
    if (signal.aborted) throw error;
    logger?.warn({ err: error }, 'summarising the messages failed; listing them');
    return { text: list, summarisedBy: 'list' };
  }
}

/**
 * The `search` action: a server-side IMAP SEARCH of the inbox, sent mail or drafts, answered with
 * a summary citing the messages as `[n]` (the LLM's, streamed as chunks of the `result` artifact
 * while it is written, else a list) and the messages in the data part.
 *
 * @example
 * yield* runSearch(settings, { task, chosen, signal: context.signal });
 */
export async function* runSearch(
  settings: MailAgentSettings,
  options: RunSearchOptions,
): AgentEvents {
  const { action } = options.chosen;
  const imap = needMailbox(settings.mailbox, 'search mail');
  const criteria = actionCriteria(action);
  yield working(`Searching ${action.folder} for ${JSON.stringify(criteria)}…`, {
    stage: 'searching',
  });
  const found = await imap.search({
    folder: action.folder,
    criteria,
    limit: settings.searchLimit,
  });
  const artifactId = randomUUID();
  const { text, summarisedBy } =
    found.messages.length === 0
      ? {
          text: `No message in ${found.mailbox} matches ${JSON.stringify(criteria)}.`,
          summarisedBy: 'list' as const,
        }
      : yield* describeFound(settings, found, { ...options, artifactId });
  const data: SearchResultData = {
    action: 'search',
    folder: found.folder,
    mailbox: found.mailbox,
    criteria,
    total: found.total,
    messages: found.messages,
    sources: found.messages.map(mailSource),
    summarisedBy,
    ...chosenData(options.chosen),
  };
  // The whole answer and its data, replacing the summary's chunks (if any were sent).
  yield resultEnd(artifactId, text, data);
  yield completed(`Found ${plural(found.total, 'message')} in ${found.mailbox}.`);
}
