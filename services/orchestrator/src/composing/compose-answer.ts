import type OpenAI from 'openai';
import {
  MAX_REVIEW_FEEDBACK,
  type Citation,
  type NodeState,
  type RunFile,
  type StepFailure,
} from '@fleet/a2a';
import {
  SpanKind,
  setLlmAttributes,
  setSpanOutput,
  withSpan,
  type WithSpanOptions,
} from '@fleet/telemetry';
import {
  currentDateLine,
  recordFailedCall,
  recordUsage,
  systemClock,
  toLlmError,
  type Clock,
} from '@fleet/llm';
import { filesSection, fullFileLine } from './answer-files';
import { renderTable, stepTables, type StepTable } from './answer-tables';
import { createCitationStream } from './citation-stream';
import { renumberCitations, sourcesFromData } from './renumber-citations';

/** One plan step as the composer sees it. */
export interface ComposeStep {
  id: string;
  agent: string;
  task: string;
  /** The task as carried out, when an approver's instructions changed it. */
  effectiveTask?: string | undefined;
  /** `rejected`: the step was not done (its approval was denied or timed out). */
  state: NodeState;
  /** The agent's answer (completed steps). */
  summary?: string | undefined;
  /** The agent's structured output, where its `sources` are. */
  data?: unknown;
  /** Tables read from the agent's CSV/TSV file parts (first rows kept). */
  tables?: readonly StepTable[] | undefined;
  /** The files the step made that the run keeps: linked at the end of the answer. */
  files?: readonly RunFile[] | undefined;
  /** Why the step failed, was not done, or did not run. */
  error?: string | undefined;
  /**
   * A failed step: `task` when its agent said why (its own words, written for people), `fleet`
   * when the fleet could not get it done (unreachable, silent, failing upstream).
   */
  failure?: StepFailure | undefined;
}

/** The LLM the composer may use; absent in offline mode. */
export interface ComposerLlm {
  client: OpenAI;
  model: string;
}

/** Logging the composer needs. */
export interface ComposerLogger {
  warn(object: object, message?: string): void;
}

/** What long-term memory knows about the user, for the composer. */
export interface ComposerProfile {
  /** The facts and preferences as sentences (`describeMemory`). */
  lines: readonly string[];
  /** The user's name: the offline answer greets them with it. */
  name?: string | undefined;
  /** `brief`: the offline answer keeps each step's first paragraph only. */
  detailLevel?: string | undefined;
}

/** Options for {@link composeAnswer}. */
export interface ComposeAnswerOptions {
  /** The user's request. */
  request: string;
  /** Every plan step, in plan order. */
  steps: readonly ComposeStep[];
  /** The user's long-term memory: the LLM's prompt shows it; the offline answer uses the name. */
  profile?: ComposerProfile | undefined;
  /** Undefined: offline composing. */
  llm?: ComposerLlm | undefined;
  logger?: ComposerLogger | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Receives the answer's body as the model writes it, piece by piece, citation markers resolved
   * (an unfinished `[…` is held until its `]`). Every piece is a prefix extension: the pieces
   * joined are the start of {@link ComposedAnswer.text}; the sections appended after the body
   * (sources, steps not done, failed steps) are not sent here.
   */
  onText?: ((text: string) => void) | undefined;
  /**
   * The answer's body was already streamed to the user as one step's own answer (a plan with a
   * single answering step, see {@link singleAnsweringStep}): the composer does not rewrite it,
   * and no model is called. `stepId` names the step; its summary is the body.
   */
  streamedStep?: string | undefined;
  /**
   * The most rows of a step's table (data part `{ columns, rows }` or CSV/TSV file) shown as a
   * Markdown table under the step (ORCHESTRATOR_ANSWER_TABLE_ROWS). @default 20
   */
  tableRows?: number | undefined;
  /**
   * A reviewer's instructions for this answer (a review sent the previous answer back to be
   * written again, `recompose`): the model's prompt gives them; the offline answer says it could
   * not follow them. At most {@link MAX_REVIEW_FEEDBACK} characters are used.
   */
  feedback?: string | undefined;
  /** Where the `orchestrator.compose` span goes. @default the fleet's tracer */
  tracer?: WithSpanOptions['tracer'];
  /** The clock the prompt's date line reads ({@link currentDateLine}). @default the system clock */
  clock?: Clock | undefined;
}

/** The final answer. */
export interface ComposedAnswer {
  /**
   * The answer, its `Sources` list and, when any, a "Steps that were not done" paragraph (denied
   * or timed-out approvals) and a "Steps that failed" paragraph.
   */
  text: string;
  /** The one global citation list the text's `[n]` markers point at. */
  citations: Citation[];
  composer: 'llm' | 'offline';
}

const COMPOSER_INSTRUCTIONS = [
  'You write the final answer to a user request from the results of several agents that worked on it.',
  'Answer the request directly and concisely, using only what the step results say.',
  'Keep the [n] citation markers next to the claims they support, exactly as numbered in the step results;',
  'never invent a marker. Do not write a list of sources, and do not list failed steps: both are appended for you.',
  'If a step failed, say plainly what happened and what the person can do about it, from the reason its agent gave in the failed steps below (a program that failed or ran out of memory or time, nothing found, an agent that is not configured);',
  'never claim that the work of a failed step was done, and do not invent results for it. A step that failed "because of the fleet" could not be reached or did not answer: say the person may try again later.',
  'If a step was not done because a person denied its approval or the approval timed out, say plainly which action was blocked and why, and never claim it happened.',
  'If a step was carried out as changed by the person who approved it, describe what was actually done, even where it differs from the request.',
  'When a step result has a Markdown table, keep that table in your answer exactly as given, with the line under it that says how much of it is shown.',
].join(' ');

/**
 * Writes the run's final answer. With an LLM, one chat completion turns the steps' answers into
 * one reply that keeps their citation markers (renumbered into one list first); without one, or
 * when the call fails (logged), the answer is assembled from the agents' own results
 * ({@link composeOffline}). Either way the text ends with the sources and names the steps that
 * were not done (and why) and the steps that failed, so nothing depends on the model remembering
 * to. A step changed at approval is described as carried out (`effectiveTask`).
 *
 * @example
 * const answer = await composeAnswer({ request, steps, llm: { client, model: 'gpt-4o-mini' }, logger });
 */
export async function composeAnswer(options: ComposeAnswerOptions): Promise<ComposedAnswer> {
  const { request, steps, llm, logger, signal, profile, onText, streamedStep, tracer } = options;
  const feedback = reviewerFeedback(options.feedback);
  const clock = options.clock ?? systemClock;
  const tableRows = options.tableRows ?? DEFAULT_TABLE_ROWS;
  const traced = tracer === undefined ? {} : { tracer };
  const single =
    streamedStep === undefined ? undefined : steps.find((step) => step.id === streamedStep);
  if (single !== undefined) {
    return withSpan(
      { name: 'orchestrator.compose', kind: SpanKind.CHAIN, input: request, ...traced },
      (span) => {
        const answer = composeFromStep(single, steps, tableRows);
        setSpanOutput(span, answer.text);
        return answer;
      },
    );
  }
  if (llm === undefined) {
    return withSpan(
      { name: 'orchestrator.compose', kind: SpanKind.CHAIN, input: request, ...traced },
      (span) => {
        const answer = composeOffline({ request, steps, profile, tableRows, feedback });
        setSpanOutput(span, answer.text);
        return answer;
      },
    );
  }
  return withSpan(
    { name: 'orchestrator.compose', kind: SpanKind.LLM, input: request, ...traced },
    async (span) => {
      const { body, citations } = renumbered(steps, 'ids', tableRows);
      const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
        {
          role: 'system',
          // The date and time first: "today", "this week" or "how long ago" are read against it.
          content: `${currentDateLine(clock())}\n${
            profile === undefined || profile.lines.length === 0
              ? COMPOSER_INSTRUCTIONS
              : `${COMPOSER_INSTRUCTIONS} ${PROFILE_INSTRUCTIONS}`
          }${feedback === undefined ? '' : ` ${FEEDBACK_INSTRUCTIONS}`}`,
        },
        {
          role: 'user',
          content: renderPrompt({ request, body, citations, steps, profile, feedback }),
        },
      ];
      const sent = createTrimmedSender(onText);
      try {
        const streamed = await streamCompletion({ llm, messages, signal, onText: sent.push });
        const content = streamed.content.trim();
        setLlmAttributes(span, {
          model: llm.model,
          provider: 'openai',
          inputMessages: messages.map((message) => ({
            role: message.role,
            content: typeof message.content === 'string' ? message.content : null,
          })),
          outputMessages: [{ role: 'assistant', content }],
          tokenCounts: {
            prompt: streamed.usage?.prompt_tokens,
            completion: streamed.usage?.completion_tokens,
          },
          finishReason: streamed.finishReason,
        });
        if (content === '') throw new Error('the model returned an empty answer');
        const text = joinSections([
          content,
          droppedTablesSection(content, steps, tableRows),
          sourcesSection(citations),
          stepsNotDoneParagraph(steps),
          failedStepsParagraph(steps),
          filesSection(completedSteps(steps)),
        ]);
        setSpanOutput(span, text);
        return { text, citations, composer: 'llm' as const };
      } catch (error) {
        if (signal?.aborted === true) throw error;
        logger?.warn(
          { err: error, model: llm.model, streamedChars: sent.text().length },
          'composing with the LLM failed; composing offline from the agents’ results',
        );
        const offline = composeOffline({ request, steps, profile, tableRows, feedback });
        // Text already shown to the reader cannot be taken back: the answer keeps it, says it was
        // cut off, and goes on with the offline answer (same citation list: same steps).
        const text =
          sent.text() === ''
            ? offline.text
            : joinSections([sent.text(), CUT_OFF_NOTE, offline.text]);
        setSpanOutput(span, text);
        return { ...offline, text };
      }
    },
  );
}

/** What goes between a model's answer cut off mid-stream and the offline answer after it. */
const CUT_OFF_NOTE = '(The written answer was cut off; here is what the agents found.)';

/** The model's streamed answer. */
interface StreamedCompletion {
  content: string;
  usage: OpenAI.Completions.CompletionUsage | undefined;
  finishReason: string | undefined;
}

/**
 * One streamed chat completion; every content delta goes to `onText` with its citation markers
 * resolved as they complete. The prompt's step results already carry the run's global numbers,
 * so a marker is passed on unchanged — what the stream guarantees is that a marker split across
 * two deltas (`[1` + `2]`) reaches the reader whole. Usage comes from the last chunk when the
 * server honours `include_usage`; a server that sends none leaves the counts unset.
 */
async function streamCompletion({
  llm,
  messages,
  signal,
  onText,
}: {
  llm: ComposerLlm;
  messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[];
  signal: AbortSignal | undefined;
  onText: (text: string) => void;
}): Promise<StreamedCompletion> {
  const stream = await llm.client.chat.completions
    .create(
      {
        model: llm.model,
        messages,
        temperature: 0.2,
        stream: true,
        stream_options: { include_usage: true },
      },
      signal === undefined ? {} : { signal },
    )
    .catch((error: unknown) => {
      recordFailedCall(toLlmError(error));
      throw error;
    });
  const citations = createCitationStream((marker) => marker);
  let content = '';
  let usage: OpenAI.Completions.CompletionUsage | undefined;
  let finishReason: string | undefined;
  let ended = false;
  try {
    for await (const chunk of stream) {
      if (chunk.usage != null) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (choice?.finish_reason != null) finishReason = choice.finish_reason;
      const delta = choice?.delta.content;
      if (typeof delta !== 'string' || delta === '') continue;
      content += delta;
      const ready = citations.push(delta);
      if (ready !== '') onText(ready);
    }
    ended = true;
  } finally {
    // Counted in the run's usage (the composer step's meter); a broken stream's usage is unknown.
    recordUsage(
      ended && usage !== undefined
        ? {
            promptTokens: usage.prompt_tokens,
            completionTokens: usage.completion_tokens,
            totalTokens: usage.total_tokens,
          }
        : undefined,
    );
  }
  const rest = citations.end();
  if (rest !== '') onText(rest);
  return { content, usage, finishReason };
}

/**
 * Hands text on to `onText` as the trimmed answer will read: leading whitespace is dropped and
 * trailing whitespace held back until more text follows, so what was sent is always a prefix of
 * the trimmed answer.
 */
function createTrimmedSender(onText: ((text: string) => void) | undefined): {
  push: (text: string) => void;
  text: () => string;
} {
  let sent = '';
  let held = '';
  return {
    push(piece) {
      const pending = sent === '' ? (held + piece).trimStart() : held + piece;
      const body = pending.trimEnd();
      held = pending.slice(body.length);
      if (body === '') return;
      sent += body;
      onText?.(body);
    },
    text: () => sent,
  };
}

/**
 * The answer of a plan whose one answering step was streamed to the reader as it came (see
 * {@link singleAnsweringStep}): the step's text as it is, its own sources in its own order (so its
 * `[n]` markers need no renumbering), then the same sections as any answer.
 */
function composeFromStep(
  step: ComposeStep,
  steps: readonly ComposeStep[],
  tableRows: number,
): ComposedAnswer {
  const citations = sourcesFromData(step.data).map((source) => ({
    ...source,
    agent: source.agent ?? step.agent,
  }));
  const text = joinSections([
    step.summary?.trim() ?? '',
    tablesSection(step, tableRows, true),
    sourcesSection(citations),
    stepsNotDoneParagraph(steps),
    failedStepsParagraph(steps),
    filesSection(completedSteps(steps)),
  ]);
  return { text, citations, composer: 'offline' };
}

/** Options for {@link composeOffline}. */
export interface ComposeOfflineOptions {
  request: string;
  steps: readonly ComposeStep[];
  /** Greets the user by name; `brief` keeps each step's first paragraph. */
  profile?: ComposerProfile | undefined;
  /** The most rows of a step's table shown. @default 20 */
  tableRows?: number | undefined;
  /** A reviewer's instructions for the answer: said not to be followed (no model rewrites it). */
  feedback?: string | undefined;
}

/**
 * The answer assembled from the agents' results, with no LLM: a lead line, each completed step's
 * answer under what the step did, in words ({@link describeStep}: no node ids) with citations renumbered into one list, the `Sources`, and plain
 * "Steps that were not done: …" and "Steps that failed: …" paragraphs. Offline mode's composer,
 * and the fallback when the LLM fails.
 *
 * @example
 * composeOffline({ request: 'Capital of France?', steps }).text;
 * // 'Here is what the agents found.\n\n**Search the web (on the web)**\nParis [1].\n\nSources\n[1] Paris — https://…'
 */
export function composeOffline({
  steps,
  profile,
  tableRows = DEFAULT_TABLE_ROWS,
  feedback,
}: ComposeOfflineOptions): ComposedAnswer {
  const { body, citations } = renumbered(
    profile?.detailLevel === 'brief'
      ? steps.map((step) =>
          step.summary === undefined ? step : { ...step, summary: firstParagraph(step.summary) },
        )
      : steps,
    'prose',
    tableRows,
  );
  const lead = leadLine(steps);
  const text = joinSections([
    profile?.name === undefined
      ? lead
      : `${profile.name}, ${lead.charAt(0).toLowerCase()}${lead.slice(1)}`,
    offlineFeedbackNote(feedback),
    body,
    sourcesSection(citations),
    stepsNotDoneParagraph(steps, 'prose'),
    failedStepsParagraph(steps, 'prose'),
    filesSection(completedSteps(steps)),
  ]);
  return { text, citations, composer: 'offline' };
}

/**
 * How a step is named: `ids` as the model's prompt (and the LLM answer's appended paragraphs)
 * name it, `**<id>** (<agent>)`; `prose` for a person reading the offline answer, by what the
 * step did and where ({@link describeStep}).
 */
export type StepNaming = 'ids' | 'prose';

/** The completed steps' answers (renumbered) and the global citation list. */
function renumbered(
  steps: readonly ComposeStep[],
  naming: StepNaming,
  tableRows: number,
): { body: string; citations: Citation[] } {
  const completed = steps.filter((step) => step.state === 'completed');
  const { steps: rewritten, citations } = renumberCitations(
    completed.map((step) => ({
      id: step.id,
      agent: step.agent,
      summary: step.summary?.trim() || '(no answer text)',
      sources: sourcesFromData(step.data),
    })),
  );
  const changed = new Map(
    completed.flatMap((step) =>
      step.effectiveTask === undefined || step.effectiveTask === step.task
        ? []
        : [[step.id, step.effectiveTask] as const],
    ),
  );
  const tasks = new Map(completed.map((step) => [step.id, step.task] as const));
  // Rendered after the renumbering, so a `[n]` in a cell is shown as the agent wrote it.
  const tables = new Map(
    // The model's prompt gets no file links (the answer's are appended, never written by it).
    completed.map((step) => [step.id, tablesSection(step, tableRows, naming === 'prose')] as const),
  );
  const body = rewritten
    .map((step) => {
      const effectiveTask = changed.get(step.id);
      if (naming === 'prose') {
        const did = describeStep({
          agent: step.agent,
          task: effectiveTask ?? tasks.get(step.id) ?? '',
        });
        const heading =
          effectiveTask === undefined ? `**${did}**` : `**${did}**, as changed by the approver`;
        return joinSections([`${heading}\n${step.summary}`, tables.get(step.id) ?? '']);
      }
      const heading =
        effectiveTask === undefined
          ? `**${step.id}** (${step.agent})`
          : `**${step.id}** (${step.agent}), carried out as changed at approval: ${oneLine(effectiveTask)}`;
      return joinSections([`${heading}\n${step.summary}`, tables.get(step.id) ?? '']);
    })
    .join('\n\n');
  return { body, citations };
}

/** How many rows of a step's table the answer shows unless told (ORCHESTRATOR_ANSWER_TABLE_ROWS). */
const DEFAULT_TABLE_ROWS = 20;

/**
 * The step's tables (data part, then CSV/TSV files) as Markdown, separated by blank lines; with
 * `links`, a table read from a file the run keeps says where the full file is.
 */
function tablesSection(step: ComposeStep, tableRows: number, links = false): string {
  return stepTables(step)
    .map((table) => {
      const rendered = renderTable(table, tableRows);
      const full = links ? fullFileLine(table, step.files) : '';
      return full === '' ? rendered : `${rendered}\n\n${full}`;
    })
    .join('\n\n');
}

/**
 * The steps' tables the model left out of its answer (their header row is not in `content`), as
 * Markdown with the line naming the full file: a step's table always reaches the reader, whatever
 * the model wrote. Empty when it kept them all.
 */
function droppedTablesSection(
  content: string,
  steps: readonly ComposeStep[],
  tableRows: number,
): string {
  return completedSteps(steps)
    .flatMap((step) =>
      stepTables(step).flatMap((table) => {
        const rendered = renderTable(table, tableRows);
        const header = rendered.split('\n')[0] ?? '';
        if (header !== '' && content.includes(header)) return [];
        const full = fullFileLine(table, step.files);
        return [full === '' ? rendered : `${rendered}\n\n${full}`];
      }),
    )
    .join('\n\n');
}

/** The completed steps: whose files the answer links. */
function completedSteps(steps: readonly ComposeStep[]): ComposeStep[] {
  return steps.filter((step) => step.state === 'completed');
}

/** Where an agent kind works, in words (matched on the agent's card name). */
const AGENT_KINDS: readonly (readonly [RegExp, string])[] = [
  [/\brag\b|document/i, 'in your documents'],
  [/\bweb\b|search/i, 'on the web'],
  [/\bmail\b/i, 'in your mailbox'],
  [/\bcode\b|python/i, 'with code'],
  [/\breason/i, 'by reasoning'],
];

/**
 * A step in words for a person, without its node id: its task (flattened, shortened) and where
 * its agent worked — "Search the web for the capital of France (on the web)"; an agent the fleet
 * does not know is named by its card name in words ("by the invoice agent").
 *
 * @example
 * describeStep({ agent: 'rag-agent', task: 'Find the travel policy.' });
 * // 'Find the travel policy (in your documents)'
 */
export function describeStep({ agent, task }: { agent: string; task: string }): string {
  const words = agent.replace(/[-_]+/g, ' ').trim();
  const where =
    AGENT_KINDS.find(([pattern]) => pattern.test(words))?.[1] ??
    `by the ${/\bagent$/i.test(words) ? words : `${words} agent`}`;
  const what = brief(task);
  if (what === '') return `A step ${where}`;
  return `${what.charAt(0).toUpperCase()}${what.slice(1)} (${where})`;
}

/** Longest task quoted in the "Steps that were not done" paragraph, in characters. */
const MAX_QUOTED_TASK = 200;

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function brief(task: string): string {
  const flat = oneLine(task).replace(/[.\s]+$/, '');
  return flat.length <= MAX_QUOTED_TASK ? flat : `${flat.slice(0, MAX_QUOTED_TASK)}…`;
}

function leadLine(steps: readonly ComposeStep[]): string {
  const total = steps.length;
  const succeeded = steps.filter((step) => step.state === 'completed').length;
  if (total === 0) return 'No agent was asked to work on this request.';
  if (succeeded === 0) {
    return total === 1
      ? 'The only step of this request failed.'
      : `None of the ${total} steps of this request succeeded.`;
  }
  if (succeeded === total) return 'Here is what the agents found.';
  return `Here is what the agents found (${succeeded} of ${total} steps succeeded).`;
}

/**
 * `Sources` then one `[n] title — url` line per citation; empty when there are none.
 */
export function sourcesSection(citations: readonly Citation[]): string {
  if (citations.length === 0) return '';
  const lines = citations.map((citation, index) =>
    citation.url !== undefined && citation.url !== ''
      ? `[${index + 1}] ${citation.title} — ${citation.url}`
      : `[${index + 1}] ${citation.title}`,
  );
  return `Sources\n${lines.join('\n')}`;
}

/**
 * `Steps that were not done: <id> (<agent>) — <task>: <reason>; …` naming every step whose
 * approval was denied or timed out (state `rejected`), with what it would have done; empty when
 * there is none.
 *
 * @example
 * stepsNotDoneParagraph([{ id: 'send', agent: 'mail-agent', state: 'rejected', error: 'denied by a person', task: 'Send the report to Bob' }]);
 * // 'Steps that were not done: send (mail-agent) — Send the report to Bob: denied by a person.'
 */
export function stepsNotDoneParagraph(
  steps: readonly ComposeStep[],
  naming: StepNaming = 'ids',
): string {
  const rejected = steps.filter((step) => step.state === 'rejected');
  if (rejected.length === 0) return '';
  const items = rejected.map((step) => {
    const reason = (step.error ?? 'its approval was denied').replace(/[.\s]+$/, '');
    return naming === 'prose'
      ? `${describeStep(step)}: ${reason}`
      : `${step.id} (${step.agent}) — ${brief(step.task)}: ${reason}`;
  });
  return `Steps that were not done: ${items.join('; ')}.`;
}

/**
 * `Steps that failed: <id> (<agent>): <reason>; …` naming every step that failed or did not run
 * (steps not done for want of approval are in {@link stepsNotDoneParagraph}); empty when there is
 * none.
 *
 * @example
 * failedStepsParagraph([{ id: 'send', agent: 'mail-agent', state: 'failed', error: 'SMTP refused', task: '…' }]);
 * // 'Steps that failed: send (mail-agent): SMTP refused.'
 */
export function failedStepsParagraph(
  steps: readonly ComposeStep[],
  naming: StepNaming = 'ids',
): string {
  const failed = steps.filter((step) => step.state !== 'completed' && step.state !== 'rejected');
  if (failed.length === 0) return '';
  const items = failed.map((step) => {
    const said = (
      step.error ?? (step.state === 'skipped' ? 'it did not run' : 'unknown error')
    ).replace(/[.\s]+$/, '');
    const reason = step.failure === 'fleet' ? `${said} ${FLEET_FAILURE_NOTE}` : said;
    return naming === 'prose'
      ? `${describeStep(step)}: ${reason}`
      : `${step.id} (${step.agent}): ${reason}`;
  });
  return `Steps that failed: ${items.join('; ')}.`;
}

/**
 * Said after the reason of a step the fleet could not get done (`failure: 'fleet'`), so the reader
 * knows it is not their request's fault and what to do.
 */
const FLEET_FAILURE_NOTE = '(because of the fleet, not your request: try again later)';

/** The composer's instructions when it knows something about the user. */
const PROFILE_INSTRUCTIONS =
  'The user profile says what is known about the user: address them by name when it is known, and follow their preferred tone, detail level and language. Never mention the profile itself.';

/** The step's text up to its first blank line (the offline answer for users who want it brief). */
function firstParagraph(text: string): string {
  return text.trim().split(/\n\s*\n/)[0] ?? text;
}

function renderPrompt({
  request,
  body,
  citations,
  steps,
  profile,
  feedback,
}: {
  request: string;
  body: string;
  citations: readonly Citation[];
  steps: readonly ComposeStep[];
  profile: ComposerProfile | undefined;
  feedback?: string | undefined;
}): string {
  return joinSections([
    profile === undefined || profile.lines.length === 0
      ? ''
      : `User profile:\n${profile.lines.map((line) => `- ${line}`).join('\n')}`,
    `Request:\n${request}`,
    `Step results:\n${body || '(no step succeeded)'}`,
    citations.length === 0
      ? ''
      : `Sources the markers point at:\n${sourcesSection(citations).replace(/^Sources\n/, '')}`,
    stepsNotDoneParagraph(steps),
    failedStepsParagraph(steps),
    feedback === undefined ? '' : `The reviewer's instructions for this answer:\n${feedback}`,
  ]);
}

/** What the system prompt adds when a reviewer sent the previous answer back. */
const FEEDBACK_INSTRUCTIONS =
  'A reviewer read a previous answer to this request and sent it back: write the answer again following the reviewer’s instructions at the end of the message, still using only what the step results say.';

/** The reviewer's feedback, trimmed and cut at {@link MAX_REVIEW_FEEDBACK}; undefined when empty. */
function reviewerFeedback(feedback: string | undefined): string | undefined {
  const trimmed = feedback?.trim() ?? '';
  return trimmed === '' ? undefined : trimmed.slice(0, MAX_REVIEW_FEEDBACK);
}

/** The offline answer's note that a reviewer's instructions could not be followed. */
function offlineFeedbackNote(feedback: string | undefined): string {
  const given = reviewerFeedback(feedback);
  return given === undefined
    ? ''
    : `A reviewer asked: "${oneLine(given)}". Without a language model this answer is put together from the agents’ results, so it could not be rewritten as asked.`;
}

function joinSections(sections: readonly string[]): string {
  return sections.filter((section) => section.trim() !== '').join('\n\n');
}
