import type OpenAI from 'openai';
import type { Citation, NodeState } from '@fleet/a2a';
import { SpanKind, setLlmAttributes, setSpanOutput, withSpan } from '@fleet/telemetry';
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
  /** Why the step failed, was not done, or did not run. */
  error?: string | undefined;
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
  'If a step failed and that leaves part of the request unanswered, say so in one plain sentence.',
  'If a step was not done because a person denied its approval or the approval timed out, say plainly which action was blocked and why, and never claim it happened.',
  'If a step was carried out as changed by the person who approved it, describe what was actually done, even where it differs from the request.',
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
  const { request, steps, llm, logger, signal, profile } = options;
  if (llm === undefined) {
    return withSpan(
      { name: 'orchestrator.compose', kind: SpanKind.CHAIN, input: request },
      (span) => {
        const answer = composeOffline({ request, steps, profile });
        setSpanOutput(span, answer.text);
        return answer;
      },
    );
  }
  return withSpan(
    { name: 'orchestrator.compose', kind: SpanKind.LLM, input: request },
    async (span) => {
      const { body, citations } = renumbered(steps);
      const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
        {
          role: 'system',
          content:
            profile === undefined || profile.lines.length === 0
              ? COMPOSER_INSTRUCTIONS
              : `${COMPOSER_INSTRUCTIONS} ${PROFILE_INSTRUCTIONS}`,
        },
        { role: 'user', content: renderPrompt({ request, body, citations, steps, profile }) },
      ];
      try {
        const completion = await llm.client.chat.completions.create(
          { model: llm.model, messages, temperature: 0.2 },
          signal === undefined ? {} : { signal },
        );
        const content = completion.choices[0]?.message.content?.trim() ?? '';
        setLlmAttributes(span, {
          model: llm.model,
          provider: 'openai',
          inputMessages: messages.map((message) => ({
            role: message.role,
            content: typeof message.content === 'string' ? message.content : null,
          })),
          outputMessages: [{ role: 'assistant', content }],
          tokenCounts: {
            prompt: completion.usage?.prompt_tokens,
            completion: completion.usage?.completion_tokens,
          },
          finishReason: completion.choices[0]?.finish_reason,
        });
        if (content === '') throw new Error('the model returned an empty answer');
        const text = joinSections([
          content,
          sourcesSection(citations),
          stepsNotDoneParagraph(steps),
          failedStepsParagraph(steps),
        ]);
        setSpanOutput(span, text);
        return { text, citations, composer: 'llm' as const };
      } catch (error) {
        if (signal?.aborted === true) throw error;
        logger?.warn(
          { err: error, model: llm.model },
          'composing with the LLM failed; composing offline from the agents’ results',
        );
        const offline = composeOffline({ request, steps, profile });
        setSpanOutput(span, offline.text);
        return offline;
      }
    },
  );
}

/** Options for {@link composeOffline}. */
export interface ComposeOfflineOptions {
  request: string;
  steps: readonly ComposeStep[];
  /** Greets the user by name; `brief` keeps each step's first paragraph. */
  profile?: ComposerProfile | undefined;
}

/**
 * The answer assembled from the agents' results, with no LLM: a lead line, each completed step's
 * answer under its step name with citations renumbered into one list, the `Sources`, and plain
 * "Steps that were not done: …" and "Steps that failed: …" paragraphs. Offline mode's composer,
 * and the fallback when the LLM fails.
 *
 * @example
 * composeOffline({ request: 'Capital of France?', steps }).text;
 * // 'Here is what the agents found.\n\n**search** (web-agent)\nParis [1].\n\nSources\n[1] Paris — https://…'
 */
export function composeOffline({ steps, profile }: ComposeOfflineOptions): ComposedAnswer {
  const { body, citations } = renumbered(
    profile?.detailLevel === 'brief'
      ? steps.map((step) =>
          step.summary === undefined ? step : { ...step, summary: firstParagraph(step.summary) },
        )
      : steps,
  );
  const lead = leadLine(steps);
  const text = joinSections([
    profile?.name === undefined
      ? lead
      : `${profile.name}, ${lead.charAt(0).toLowerCase()}${lead.slice(1)}`,
    body,
    sourcesSection(citations),
    stepsNotDoneParagraph(steps),
    failedStepsParagraph(steps),
  ]);
  return { text, citations, composer: 'offline' };
}

/** The completed steps' answers (renumbered) and the global citation list. */
function renumbered(steps: readonly ComposeStep[]): { body: string; citations: Citation[] } {
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
  const body = rewritten
    .map((step) => {
      const effectiveTask = changed.get(step.id);
      const heading =
        effectiveTask === undefined
          ? `**${step.id}** (${step.agent})`
          : `**${step.id}** (${step.agent}), carried out as changed at approval: ${oneLine(effectiveTask)}`;
      return `${heading}\n${step.summary}`;
    })
    .join('\n\n');
  return { body, citations };
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
export function stepsNotDoneParagraph(steps: readonly ComposeStep[]): string {
  const rejected = steps.filter((step) => step.state === 'rejected');
  if (rejected.length === 0) return '';
  const items = rejected.map((step) => {
    const reason = (step.error ?? 'its approval was denied').replace(/[.\s]+$/, '');
    return `${step.id} (${step.agent}) — ${brief(step.task)}: ${reason}`;
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
export function failedStepsParagraph(steps: readonly ComposeStep[]): string {
  const failed = steps.filter((step) => step.state !== 'completed' && step.state !== 'rejected');
  if (failed.length === 0) return '';
  const items = failed.map((step) => {
    const reason = (
      step.error ?? (step.state === 'skipped' ? 'it did not run' : 'unknown error')
    ).replace(/[.\s]+$/, '');
    return `${step.id} (${step.agent}): ${reason}`;
  });
  return `Steps that failed: ${items.join('; ')}.`;
}

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
}: {
  request: string;
  body: string;
  citations: readonly Citation[];
  steps: readonly ComposeStep[];
  profile: ComposerProfile | undefined;
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
  ]);
}

function joinSections(sections: readonly string[]): string {
  return sections.filter((section) => section.trim() !== '').join('\n\n');
}
