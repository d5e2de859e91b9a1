import { completed, result, working, type AgentEvents } from '@fleet/agent-kit';
import type { ChosenAction } from '../actions';
import type { FullMessage } from '../mail';
import { findTarget } from './find-target';
import type { MailAgentSettings } from './mail-agent-settings';
import { chosenData, mailSource, type ReadResultData } from './result-data';

function renderMessage(message: FullMessage): string {
  return [
    `From: ${message.from}`,
    `To: ${message.to.join(', ')}`,
    ...(message.cc.length === 0 ? [] : [`Cc: ${message.cc.join(', ')}`]),
    `Date: ${message.date ?? 'unknown'}`,
    `Subject: ${message.subject}`,
    '',
    message.text,
  ].join('\n');
}

/**
 * The `read` action: the message by uid, else the newest match, in full as `[1]`, and in the
 * data part.
 *
 * @example
 * yield* runRead(settings, chosen);
 */
export async function* runRead(settings: MailAgentSettings, chosen: ChosenAction): AgentEvents {
  yield working('Reading the message…', { stage: 'reading' });
  const message = await findTarget(settings.mailbox, chosen.action);
  const data: ReadResultData = {
    action: 'read',
    message,
    sources: [mailSource(message)],
    ...chosenData(chosen),
  };
  yield result(`[1] ${renderMessage(message)}`, data);
  yield completed(`Read "${message.subject}" from ${message.from}.`);
}
