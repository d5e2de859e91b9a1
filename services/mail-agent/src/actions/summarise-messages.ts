import { completeChat, streamChat } from '@fleet/llm';
import {
  Attributes,
  getTracer,
  recordError,
  setSpanInput,
  setSpanOutput,
  SpanKind,
  withSpan,
} from '@fleet/telemetry';
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
}: SummariseMessagesOptions): Promise<string> {
  const conversation = summaryConversation(task, messages);
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

/**
 * {@link summariseMessages}, streamed: the same call with `stream: true`, yielding the summary in
 * pieces (trimmed as a whole: leading whitespace dropped, trailing whitespace held until more
 * text follows) and returning the whole text, which the pieces join to. The `mail.summarise` LLM
 * span gets the task, the summary and the token counts.
 *
 * @throws the call's error, also after some pieces, or an Error for an empty summary (nothing was
 *   yielded then); callers fall back to {@link listMessages}.
 * @example
 * const text = yield* resultChunks(artifactId, streamSummary({ llm, task, messages, signal }));
 */
export async function* streamSummary({
  llm,
  task,
  messages,
  signal,
}: SummariseMessagesOptions): AsyncGenerator<string, string, undefined> {
  const span = getTracer().startSpan('mail.summarise', {
    attributes: { [Attributes.SPAN_KIND]: SpanKind.LLM },
  });
  setSpanInput(span, task);
  let text = '';
  let held = '';
  try {
    const deltas = streamChat({
      client: llm.client,
      model: llm.model,
      messages: summaryConversation(task, messages),
      temperature: 0.1,
      signal,
      span,
    });
    let next = await deltas.next();
    while (next.done !== true) {
      let piece = held + next.value;
      if (text === '') piece = piece.trimStart();
      const body = piece.trimEnd();
      held = piece.slice(body.length);
      if (body !== '') {
        text += body;
        yield body;
      }
      next = await deltas.next();
    }
    if (text === '') throw new Error('the model returned an empty summary');
    setSpanOutput(span, text);
    return text;
  } catch (error) {
    recordError(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** The system and user messages of a summary call. */
function summaryConversation(task: string, messages: readonly (MessageSummary | FullMessage)[]) {
  const prompt = `Task: ${task}\n\nMessages:\n\n${messages.map(describe).join('\n\n')}`;
  return [
    { role: 'system' as const, content: SUMMARY_INSTRUCTIONS },
    { role: 'user' as const, content: prompt },
  ];
}

/** Options for {@link summariseMessages} and {@link streamSummary}. */
export interface SummariseMessagesOptions {
  llm: LlmSettings;
  task: string;
  messages: readonly (MessageSummary | FullMessage)[];
  signal?: AbortSignal | undefined;
}
