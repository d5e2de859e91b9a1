import { createSseWriter, renderErrorBody } from '@fleet/http';
import {
  sendJsonAnswer,
  type AnswerChannel,
  type AnswerChannelFactory,
  type ChatChunkLike,
  type ChatCompletionLike,
  type ChatUsage,
} from '../openai';
import {
  answerUsage,
  progressLines,
  responseId,
  responseObject,
  answerAnnotations,
  type MessageItem,
  type OutputItem,
  type OutputText,
  type ReasoningItem,
  type ResponseShell,
} from './response-object';

/** The `{ error: { message, type, param, code } }` body of a failure (OpenAI's envelope). */
function errorEnvelope(error: unknown): {
  error: { message: string; type: string; param: string | null; code: string | null };
} {
  return renderErrorBody(error, { format: 'openai' }) as {
    error: { message: string; type: string; param: string | null; code: string | null };
  };
}

type Send = (type: string, data: Record<string, unknown>) => void;

/** Opens a new `message` item with one empty `output_text` part, and sends that they were added. */
function openMessageItem(send: Send, output: OutputItem[]): MessageItem {
  const item: MessageItem = {
    id: responseId('msg'),
    type: 'message',
    role: 'assistant',
    status: 'in_progress',
    content: [],
  };
  output.push(item);
  const index = output.length - 1;
  send('response.output_item.added', { output_index: index, item });
  const part: OutputText = { type: 'output_text', text: '', annotations: [], logprobs: [] };
  item.content.push(part);
  send('response.content_part.added', {
    item_id: item.id,
    output_index: index,
    content_index: 0,
    part,
  });
  return item;
}

/**
 * Adds one progress line to the open `reasoning` item as a `summary_text` part, with its events
 * (the structured event carried as `fleet` on the delta).
 */
function addSummaryPart(
  send: Send,
  { output, reasoning }: { output: OutputItem[]; reasoning: ReasoningItem },
  { line, event }: { line: string; event: Record<string, unknown> | undefined },
): void {
  const at = {
    item_id: reasoning.id,
    output_index: output.indexOf(reasoning),
    summary_index: reasoning.summary.length,
  };
  const part = { type: 'summary_text' as const, text: line };
  reasoning.summary.push(part);
  send('response.reasoning_summary_part.added', { ...at, part: { ...part, text: '' } });
  send('response.reasoning_summary_text.delta', {
    ...at,
    delta: line,
    ...(event === undefined ? {} : { fleet: event }),
  });
  send('response.reasoning_summary_text.done', { ...at, text: line });
  send('response.reasoning_summary_part.done', { ...at, part });
}

/**
 * Adds to the message items of `output` the annotations of `fleet` they do not have yet, with one
 * `response.output_text.annotation.added` event each.
 */
function annotateMessages(
  send: Send,
  output: OutputItem[],
  fleet: Record<string, unknown> | undefined,
): void {
  for (const [outputIndex, item] of output.entries()) {
    if (item.type !== 'message') continue;
    const part = item.content[0];
    if (part === undefined) continue;
    const known = new Set(part.annotations.map((annotation) => JSON.stringify(annotation)));
    for (const annotation of answerAnnotations(part.text, fleet)) {
      if (known.has(JSON.stringify(annotation))) continue;
      part.annotations.push(annotation);
      send('response.output_text.annotation.added', {
        item_id: item.id,
        output_index: outputIndex,
        content_index: 0,
        annotation_index: part.annotations.length - 1,
        annotation,
      });
    }
  }
}

/**
 * The output items of one streamed answer and the events that build them: progress lines go into
 * a `reasoning` item (one `summary_text` part each), answer text into a `message` item's
 * `output_text`; each item is closed (`…done` events) when the other kind starts or the answer
 * ends. `citationsFrom` gives the run's `fleet` object for `url_citation` annotations.
 */
function createOutputItems(send: Send, citationsFrom: () => Record<string, unknown> | undefined) {
  const output: OutputItem[] = [];
  let reasoning: ReasoningItem | undefined;
  let message: MessageItem | undefined;

  const closeReasoning = (): void => {
    if (reasoning === undefined) return;
    reasoning.status = 'completed';
    send('response.output_item.done', { output_index: output.indexOf(reasoning), item: reasoning });
    reasoning = undefined;
  };
  const closeMessage = (): void => {
    if (message === undefined) return;
    const at = { item_id: message.id, output_index: output.indexOf(message), content_index: 0 };
    const part = message.content[0];
    if (part !== undefined) {
      part.annotations = answerAnnotations(part.text, citationsFrom());
      send('response.output_text.done', { ...at, text: part.text, logprobs: [] });
      send('response.content_part.done', { ...at, part });
    }
    message.status = 'completed';
    send('response.output_item.done', { output_index: at.output_index, item: message });
    message = undefined;
  };

  return {
    output,
    /** One progress line (and its structured event, carried as `fleet` on the delta). */
    progress(line: string, event: Record<string, unknown> | undefined): void {
      closeMessage();
      if (reasoning === undefined) {
        reasoning = { id: responseId('rs'), type: 'reasoning', status: 'in_progress', summary: [] };
        output.push(reasoning);
        send('response.output_item.added', { output_index: output.length - 1, item: reasoning });
      }
      addSummaryPart(send, { output, reasoning }, { line, event });
    },
    /** A piece of the answer text. */
    answer(text: string): void {
      closeReasoning();
      message ??= openMessageItem(send, output);
      const part = message.content[0];
      if (part === undefined || text === '') return;
      part.text += text;
      send('response.output_text.delta', {
        item_id: message.id,
        output_index: output.indexOf(message),
        content_index: 0,
        delta: text,
        logprobs: [],
      });
    },
    /** Closes whatever item is still open. */
    close(): void {
      closeReasoning();
      closeMessage();
    },
    /**
     * Adds to the answer's message items the annotations only the run's `fleet` object makes
     * known (its sources and files come with the result, after an item may have closed): one
     * `response.output_text.annotation.added` event each, so the completed response has them all.
     */
    annotate(): void {
      annotateMessages(send, output, citationsFrom());
    },
  };
}

/**
 * Builds the Responses events of one streamed answer from the agent route's chat chunks, numbering
 * them (`sequence_number`), so `response.completed` carries the whole response. `emit` writes one
 * event.
 */
function createEventBuilder(shell: ResponseShell, emit: Send) {
  let fleet: Record<string, unknown> | undefined;
  let usage: ChatUsage | null | undefined;
  let sequence = 0;
  const send: Send = (type, data) => emit(type, { type, ...data, sequence_number: sequence++ });
  const items = createOutputItems(send, () => fleet);

  return {
    start(): void {
      const snapshot = responseObject(shell, { status: 'in_progress', output: [] });
      send('response.created', { response: snapshot });
      send('response.in_progress', { response: snapshot });
    },
    chunk(chunk: ChatChunkLike): void {
      if (chunk.usage != null) usage = chunk.usage;
      const delta = chunk.choices[0]?.delta;
      const event = chunk.fleet;
      if (event?.['type'] === 'run-result') fleet = event;
      if (delta?.reasoning_content !== undefined) {
        items.progress(delta.reasoning_content.replace(/\n$/, ''), event);
      } else if (delta?.content !== undefined) {
        items.answer(delta.content);
      }
    },
    complete(): void {
      items.close();
      items.annotate();
      const done = responseObject(shell, {
        status: 'completed',
        output: items.output,
        usage: answerUsage(usage, fleet),
        fleet,
      });
      send('response.completed', { response: done });
    },
    failed(error: unknown): void {
      const { error: body } = errorEnvelope(error);
      const code = body.code ?? body.type;
      const failed = responseObject(shell, {
        status: 'failed',
        output: items.output,
        error: { code, message: body.message },
        fleet,
      });
      send('response.failed', { response: failed });
      // The `error` field makes OpenAI SDKs raise an APIError, as they do for chat streams.
      send('error', { code, message: body.message, param: body.param, error: body });
    },
  };
}

/** The whole `response` of an answer that was not streamed. */
function toResponse(shell: ResponseShell, completion: ChatCompletionLike) {
  const message = completion.choices[0]?.message;
  const output: OutputItem[] = [];
  const lines = progressLines(message?.reasoning_content ?? '');
  if (lines.length > 0) {
    output.push({
      id: responseId('rs'),
      type: 'reasoning',
      status: 'completed',
      summary: lines.map((text) => ({ type: 'summary_text', text })),
    });
  }
  const text = message?.content ?? '';
  output.push({
    id: responseId('msg'),
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [
      {
        type: 'output_text',
        text,
        annotations: answerAnnotations(text, completion.fleet),
        logprobs: [],
      },
    ],
  });
  return responseObject(shell, {
    status: 'completed',
    output,
    usage: answerUsage(completion.usage, completion.fleet),
    fleet: completion.fleet,
  });
}

/**
 * The `/v1/responses` channel for the agent routes: their chat chunks become the Responses
 * streaming events (`response.created`, `response.in_progress`, progress lines as a `reasoning`
 * item's `summary_text` parts, the answer as a `message` item's `output_text` deltas,
 * `response.completed` with usage and the `fleet` object; `response.failed` and `error` on
 * failure), each an `event:` frame with its `sequence_number`. A whole answer becomes one
 * `response` object. Keep-alive comments keep a paused run's connection open.
 *
 * @example
 * await orchestrate({ ...call, api: { path: '/v1/responses', channel: responsesChannel(request.model) } });
 */
export function responsesChannel(model: string): AnswerChannelFactory {
  return (res, { keepAliveMs = 15_000, onClose }) => {
    const shell: ResponseShell = {
      id: responseId('resp'),
      createdAt: Math.floor(Date.now() / 1000),
      model,
    };
    const sse = createSseWriter(res, {
      keepAliveMs,
      keepAliveComment: 'keep-alive',
      renderError: (error) => errorEnvelope(error),
      ...(onClose === undefined ? {} : { onClose }),
    });
    const events = createEventBuilder(shell, (type, data) => sse.event(type, JSON.stringify(data)));
    const channel: AnswerChannel = {
      get opened() {
        return sse.opened;
      },
      open(options) {
        if (sse.opened) return;
        sse.open(options);
        events.start();
      },
      chunk(chunk) {
        if (!sse.opened) channel.open({});
        events.chunk(chunk);
      },
      done() {
        if (!sse.opened) channel.open({});
        events.complete();
        sse.end();
      },
      fail(error) {
        events.failed(error);
        sse.end();
      },
      release: () => sse.release(),
      json: ({ headers, completion }) =>
        sendJsonAnswer(res, { headers, body: JSON.stringify(toResponse(shell, completion)) }),
    };
    return channel;
  };
}
