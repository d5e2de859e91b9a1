import type OpenAI from 'openai';
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionFunctionTool,
} from 'openai/resources/chat/completions';
import type { HistoryMessage } from '@fleet/a2a';
import { AbortError, toFleetError, UpstreamError } from '@fleet/errors';
import { streamChat, type StreamChatResult } from '@fleet/llm';
import {
  Attributes,
  getTracer,
  recordError,
  setSpanOutput,
  SpanKind,
  withSpan,
  type WithSpanOptions,
} from '@fleet/telemetry';
import type { ReasoningTool } from '../tools';
import { attachmentContent, type Attachment } from './attachments';
import { describeStep } from './describe-step';
import type {
  ReasoningEvent,
  ReasoningOutcome,
  ReasoningStep,
  ReasoningUsage,
  StopReason,
} from './reasoning-step';

/** The system prompt of every model call. */
export const REASONING_INSTRUCTIONS = [
  'You are a careful reasoning assistant. Work through the question step by step.',
  'Use the calculate tool for every arithmetic operation, however simple, and current_time whenever the answer depends on the current date or time; never guess them.',
  'When you have what you need, answer the question directly and concisely, without tool calls.',
].join(' ');

/** What the model is told on its last allowed call. */
export const LAST_STEP_NOTE =
  'Budget note: this is your last step and no more tools can run. Answer now from what you have found; if it is not enough to be sure, say what is missing.';

/** Options for {@link runReasoning}. */
export interface RunReasoningOptions {
  client: OpenAI;
  model: string;
  question: string;
  /** Earlier turns of the conversation (the gateway sends them). @default [] */
  history?: readonly HistoryMessage[];
  /** Extra context for the question, e.g. earlier plan steps' results. @default [] */
  context?: readonly string[];
  /**
   * The files that came with the question (`readAttachments`): images as `image_url` parts, text
   * files as text, the others named. @default []
   */
  attachments?: readonly Attachment[];
  tools: readonly ReasoningTool[];
  /** Model calls allowed; the last one must answer. */
  maxIterations: number;
  /** Tokens allowed across all model calls, checked before each call. */
  maxTokens: number;
  signal?: AbortSignal | undefined;
  tracer?: WithSpanOptions['tracer'];
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** What an image is counted as when the upstream reports no usage (a detailed 1024² tile set). */
const ESTIMATED_IMAGE_TOKENS = 1_000;

/** The prompt's tokens, estimated: its text, and a fixed count per image (not its data URL). */
function estimatePromptTokens(messages: readonly ChatCompletionMessageParam[]): number {
  let images = 0;
  const text = JSON.stringify(messages, (key, value: unknown) => {
    if (key === 'image_url') {
      images += 1;
      return undefined;
    }
    return value;
  });
  return estimateTokens(text) + images * ESTIMATED_IMAGE_TOKENS;
}

function toolDefinitions(tools: readonly ReasoningTool[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

function budgetMessage(stopReason: Exclude<StopReason, 'answered'>, limit: number): string {
  return stopReason === 'iteration-budget'
    ? `The reasoning budget ran out (${limit} model calls) before I reached a final answer.`
    : `The reasoning budget ran out (${limit} tokens) before I reached a final answer.`;
}

/** The answer when a budget ran out: what the steps found, said plainly. */
function answerFromSteps(options: {
  steps: readonly ReasoningStep[];
  stopReason: Exclude<StopReason, 'answered'>;
  limit: number;
  draft?: string | undefined;
}): string {
  const { steps, stopReason, limit, draft } = options;
  const lines = [budgetMessage(stopReason, limit)];
  if (draft !== undefined && draft.trim() !== '') {
    lines.push('', `My answer so far: ${draft.trim()}`);
  }
  const found = steps.flatMap((step, index) => {
    if (step.type !== 'tool-result') return [];
    const call = steps
      .slice(0, index)
      .findLast((earlier) => earlier.type === 'tool-call' && earlier.callId === step.callId);
    const label = call === undefined ? step.name : describeStep(call).replace(/^Calling /, '');
    return [`- ${label} → ${step.ok ? step.output : `error: ${step.output}`}`];
  });
  if (found.length > 0) lines.push('', 'What I found so far:', ...found);
  const lastThought = steps.findLast((step) => step.type === 'thought');
  if (found.length === 0 && lastThought?.type === 'thought') {
    lines.push('', `Where my reasoning stood: ${lastThought.text.trim()}`);
  }
  return lines.join('\n');
}

/**
 * The reasoning loop: calls the model with the tools, runs the tools it asks for, feeds their
 * results back, and repeats until the model answers, within `maxIterations` model calls and
 * `maxTokens` tokens. The last allowed call offers no tool (`tool_choice: 'none'`) and asks for an
 * answer; when a budget runs out first, the answer says so and lists what was found. Yields every
 * step as it happens (thoughts, tool calls, tool results), the answer's text (`answer-delta`,
 * live while each call streams: text the model writes before a tool call is part of the answer,
 * as in any chat client, and the pieces join to the outcome's answer), then the outcome. Each model
 * call is an LLM span and each tool call a TOOL span. A tool's error goes back to the model as
 * its result, so it can correct itself.
 *
 * @throws the upstream's error (`toLlmError`) when a model call fails; AbortError when `signal`
 *   aborts.
 * @example
 * for await (const event of runReasoning({ client, model, question: 'What is 6 * 7?', tools, maxIterations: 6, maxTokens: 16000 })) {
 *   if (event.type === 'end') console.log(event.outcome.answer);
 * }
 */
export async function* runReasoning({
  client,
  model,
  question,
  history = [],
  context = [],
  attachments = [],
  tools,
  maxIterations,
  maxTokens,
  signal,
  tracer,
}: RunReasoningOptions): AsyncGenerator<ReasoningEvent, void, undefined> {
  const messages = firstMessages({ question, history, context, attachments });
  const definitions = toolDefinitions(tools);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const usage: ReasoningUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  const steps: ReasoningStep[] = [];
  let answeredBy = model;
  let iterations = 0;

  const answer = createAnswer();
  const end = (stopReason: StopReason): ReasoningEvent =>
    endEvent({ answer: answer.text, stopReason, iterations, usage, steps, model: answeredBy });

  while (iterations < maxIterations) {
    if (usage.totalTokens >= maxTokens) {
      yield* answer.sayBlock(
        answerFromSteps({ steps, stopReason: 'token-budget', limit: maxTokens }),
      );
      yield end('token-budget');
      return;
    }
    iterations += 1;
    const iteration = iterations;
    const last = iteration === maxIterations;
    if (last && iteration > 1) messages.push({ role: 'user', content: LAST_STEP_NOTE });
    const completion = yield* streamAnswer(
      callModel({
        client,
        model,
        messages,
        tools: definitions,
        last,
        iteration,
        signal,
        tracer,
      }),
      answer,
    );
    answeredBy = completion.model || model;
    addUsage(usage, completion, messages);

    const content = completion.content.trim();
    const thinking = completion.reasoning.trim();
    const calls = completion.toolCalls;

    if (thinking !== '') yield thought(steps, iteration, thinking);
    if (calls.length === 0) {
      if (content === '') {
        throw new UpstreamError('The model returned neither an answer nor a tool call.', {
          status: 502,
        });
      }
      yield end('answered');
      return;
    }
    // Text before a tool call went out as answer text; it is kept as a step for the record.
    if (content !== '') steps.push({ type: 'thought', iteration, text: content });
    if (last) {
      // The model still wants tools after being told it cannot have them.
      yield* answer.sayBlock(
        answerFromSteps({ steps, stopReason: 'iteration-budget', limit: maxIterations }),
      );
      yield end('iteration-budget');
      return;
    }
    messages.push({
      role: 'assistant',
      content: content === '' ? null : content,
      tool_calls: calls,
    });
    for (const step of yield* runToolCalls({
      calls,
      iteration,
      byName,
      messages,
      signal,
      tracer,
    })) {
      steps.push(step);
    }
  }
  // Only reached with maxIterations < 1 (the config forbids it): nothing was asked.
  yield* answer.sayBlock(
    answerFromSteps({ steps, stopReason: 'iteration-budget', limit: maxIterations }),
  );
  yield end('iteration-budget');
}

function addUsage(
  usage: ReasoningUsage,
  completion: StreamChatResult,
  messages: readonly ChatCompletionMessageParam[],
): void {
  if (completion.usage) {
    usage.promptTokens += completion.usage.promptTokens;
    usage.completionTokens += completion.usage.completionTokens;
    usage.totalTokens += completion.usage.totalTokens;
    return;
  }
  // No usage from the upstream: estimate, so the token budget still holds.
  const prompt = estimatePromptTokens(messages);
  const completionTokens = estimateTokens(
    completion.reasoning + completion.content + JSON.stringify(completion.toolCalls),
  );
  usage.promptTokens += prompt;
  usage.completionTokens += completionTokens;
  usage.totalTokens += prompt + completionTokens;
  usage.estimated = true;
}

/** The run's last event: the answer and how the run went. */
function endEvent(outcome: ReasoningOutcome): ReasoningEvent {
  return {
    type: 'end',
    outcome: { ...outcome, usage: { ...outcome.usage }, steps: [...outcome.steps] },
  };
}

/** Records a thought (the model's reasoning, or its note before a tool call) and its event. */
function thought(steps: ReasoningStep[], iteration: number, text: string): ReasoningEvent {
  const step: ReasoningStep = { type: 'thought', iteration, text };
  steps.push(step);
  return { type: 'step', step };
}

/**
 * The conversation a run starts from: the instructions, the history, the question and context,
 * and the question's attachments (content parts after the question's text).
 */
function firstMessages({
  question,
  history,
  context,
  attachments,
}: Pick<
  Required<RunReasoningOptions>,
  'question' | 'history' | 'context' | 'attachments'
>): ChatCompletionMessageParam[] {
  const asked =
    context.length === 0
      ? question
      : `${question}\n\nContext from earlier steps:\n${context.map((line) => `- ${line}`).join('\n')}`;
  return [
    { role: 'system', content: REASONING_INSTRUCTIONS },
    ...history.map((message): ChatCompletionMessageParam =>
      message.role === 'tool' || message.role === 'developer'
        ? { role: 'user', content: message.content }
        : { role: message.role, content: message.content },
    ),
    {
      role: 'user',
      content:
        attachments.length === 0
          ? asked
          : [{ type: 'text', text: asked }, ...attachmentContent(attachments)],
    },
  ];
}

/**
 * The answer as it goes out: every call's text, trimmed, calls separated by a blank line. `say`
 * yields what it adds as an `answer-delta`, so the deltas always join to `text`.
 */
interface AnswerText {
  readonly text: string;
  /** Starts the text of a new model call (a blank line before it if text came before). */
  startCall(): void;
  say(piece: string): Generator<ReasoningEvent, void, undefined>;
  /** A text of its own (e.g. why the budget stopped the run), after a blank line. */
  sayBlock(block: string): Generator<ReasoningEvent, void, undefined>;
}

function createAnswer(): AnswerText {
  let text = '';
  let callStarted = false;
  return {
    get text() {
      return text;
    },
    startCall() {
      callStarted = false;
    },
    *say(piece) {
      if (piece === '') return;
      const out = !callStarted && text !== '' ? `\n\n${piece}` : piece;
      callStarted = true;
      text += out;
      yield { type: 'answer-delta', text: out };
    },
    *sayBlock(block) {
      this.startCall();
      yield* this.say(block);
    },
  };
}

/**
 * Passes one model call's content on as answer deltas, live, whether or not the call ends in a
 * tool call: a person sees the answer at the model's pace, and a note written before a tool call
 * reads as part of the answer, as it does in any chat client. Returns the whole call.
 */
async function* streamAnswer(
  called: AsyncGenerator<string, StreamChatResult, undefined>,
  answer: AnswerText,
): AsyncGenerator<ReasoningEvent, StreamChatResult, undefined> {
  const trimmer = createTrimmer();
  answer.startCall();
  let next = await called.next();
  while (next.done !== true) {
    yield* answer.say(trimmer.push(next.value));
    next = await called.next();
  }
  return next.value;
}

/**
 * `trim()` of a text that arrives in pieces: leading whitespace is dropped and trailing whitespace
 * held until more text follows, so the pieces join to the trimmed whole.
 */
function createTrimmer(): { push(piece: string): string } {
  let started = false;
  let held = '';
  return {
    push(piece) {
      let text = held + piece;
      if (!started) text = text.trimStart();
      const body = text.trimEnd();
      held = text.slice(body.length);
      if (body !== '') started = true;
      return body;
    },
  };
}

/** One streamed model call in its LLM span: yields the content deltas, returns the whole call. */
async function* callModel(options: {
  client: OpenAI;
  model: string;
  messages: ChatCompletionMessageParam[];
  tools: ChatCompletionFunctionTool[];
  last: boolean;
  iteration: number;
  signal: AbortSignal | undefined;
  tracer: WithSpanOptions['tracer'];
}): AsyncGenerator<string, StreamChatResult, undefined> {
  const { client, model, messages, tools, last, iteration, signal, tracer = getTracer() } = options;
  const toolChoice = last ? 'none' : 'auto';
  const span = tracer.startSpan('reasoning.llm', {
    attributes: { [Attributes.SPAN_KIND]: SpanKind.LLM, 'reasoning.iteration': iteration },
  });
  try {
    const completion = yield* streamChat({
      client,
      model,
      messages,
      tools,
      toolChoice,
      invocationParameters: { tools: tools.map((tool) => tool.function.name) },
      signal,
      span,
    });
    setSpanOutput(span, completion.content);
    return completion;
  } catch (error) {
    recordError(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Runs one turn's tool calls in order: each call and its result become steps (yielded as they
 * happen, returned for the run's record), and each result goes back to the model as a `tool`
 * message.
 */
async function* runToolCalls({
  calls,
  iteration,
  byName,
  messages,
  signal,
  tracer,
}: {
  calls: readonly ChatCompletionMessageFunctionToolCall[];
  iteration: number;
  byName: ReadonlyMap<string, ReasoningTool>;
  messages: ChatCompletionMessageParam[];
  signal: AbortSignal | undefined;
  tracer: WithSpanOptions['tracer'];
}): AsyncGenerator<ReasoningEvent, ReasoningStep[], undefined> {
  const steps: ReasoningStep[] = [];
  for (const call of calls) {
    const request: ReasoningStep = {
      type: 'tool-call',
      iteration,
      callId: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    };
    steps.push(request);
    yield { type: 'step', step: request };
    if (signal?.aborted) throw new AbortError('The reasoning run was cancelled.');
    const result = await runTool({ tool: byName.get(call.function.name), call, signal, tracer });
    // A cancelled task stops here, whatever the tool made of the abort.
    if (signal?.aborted) throw new AbortError('The reasoning run was cancelled.');
    const step: ReasoningStep = {
      type: 'tool-result',
      iteration,
      callId: call.id,
      name: call.function.name,
      ...result,
    };
    steps.push(step);
    yield { type: 'step', step };
    messages.push({
      role: 'tool',
      tool_call_id: call.id,
      content: result.ok ? result.output : `Error: ${result.output}`,
    });
  }
  return steps;
}

async function runTool(options: {
  tool: ReasoningTool | undefined;
  call: ChatCompletionMessageFunctionToolCall;
  signal: AbortSignal | undefined;
  tracer: WithSpanOptions['tracer'];
}): Promise<{ ok: boolean; output: string }> {
  const { tool, call, signal, tracer } = options;
  return withSpan(
    {
      name: `reasoning.tool ${call.function.name}`,
      kind: SpanKind.TOOL,
      input: call.function.arguments,
      attributes: { 'tool.name': call.function.name },
      tracer,
    },
    async (span) => {
      if (tool === undefined) {
        const output = `There is no tool named "${call.function.name}".`;
        setSpanOutput(span, output);
        return { ok: false, output };
      }
      try {
        const output = await tool.run(call.function.arguments, { signal });
        setSpanOutput(span, output);
        return { ok: true, output };
      } catch (error) {
        // A bad call is the model's to fix: its message goes back as the result, the run goes on.
        const output = toFleetError(error).message;
        setSpanOutput(span, `Error: ${output}`);
        span.setAttribute('tool.error', output);
        return { ok: false, output };
      }
    },
  );
}
