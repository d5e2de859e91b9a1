import { completeChat } from '@fleet/llm';
import { setSpanOutput, SpanKind, withSpan } from '@fleet/telemetry';
import type { FullMessage, MessageSummary } from '../mail';
import type { LlmSettings } from './create-action-chooser';

/** The system prompt of the summary call. */
export const SUMMARY_INSTRUCTIONS = [
  'You summarise e-mail for the user, using ONLY the numbered messages given.',
  'Answer the task in a few sentences or a short list; cite each message you use right after the claim with its number in brackets, like [1].',
  'Never invent senders, dates, amounts or content. If no message answers the task, say so.',
].join(' ');

function describe(message: MessageSummary | FullMessage, index: number): string {
  const body = 'text' in message ? message.text.slice(0, 6000) : message.snippet;
  return `[${index + 1}] From: ${message.from}\nTo: ${message.to.join(', ')}\nDate: ${message.date ?? 'unknown'}\nSubject: ${message.subject}\n${body}`;
}

/**
 * The offline summary: one line per message with its `[n]` marker.
 *
 * @example
 * listMessages([message]); // "[1] 2026-03-01 — Bob <bob@x> — Invoice: Please find…"
 */
export function listMessages(messages: readonly (MessageSummary | FullMessage)[]): string {
  return messages
    .map(
      (message, index) =>
        `[${index + 1}] ${message.date?.slice(0, 10) ?? 'undated'} — ${message.from || 'unknown sender'} — ${message.subject || '(no subject)'}${message.snippet === '' ? '' : `: ${message.snippet}`}`,
    )
    .join('\n');
}

/**
 * Summarises messages for the task with the LLM (one chat completion in an LLM span), citing
 * them as `[n]`. Throws the call's error; callers fall back to {@link listMessages}.
 *
 * @example
 * const text = await summariseMessages({ llm, task, messages });
 */
export async function summariseMessages({
  llm,
  task,
  messages,
  signal,
}: {
  llm: LlmSettings;
  task: string;
  messages: readonly (MessageSummary | FullMessage)[];
  signal?: AbortSignal | undefined;
}): Promise<string> {
  const prompt = `Task: ${task}\n\nMessages:\n\n${messages.map(describe).join('\n\n')}`;
  const conversation = [
    { role: 'system' as const, content: SUMMARY_INSTRUCTIONS },
    { role: 'user' as const, content: prompt },
  ];
  return withSpan({ name: 'mail.summarise', kind: SpanKind.LLM, input: task }, async (span) => {
    const { content: answer } = await completeChat({
      client: llm.client,
      model: llm.model,
      messages: conversation,
      temperature: 0.1,
      signal,
      span,
    });
    const content = answer.trim();
    if (content === '') throw new Error('the model returned an empty summary');
    setSpanOutput(span, content);
    return content;
  });
}
