import { randomUUID } from 'node:crypto';
import type { AgentContext, AgentEvent, AgentExecute } from '@fleet/a2a/server';
import {
  completed,
  dependencyContext,
  failed,
  plural,
  rejected,
  resultChunk,
  resultEnd,
  working,
  type AgentEvents,
  type ErrorStatusOptions,
} from '@fleet/agent-kit';
import { toFleetError } from '@fleet/errors';
import { getActiveSpan, setSessionAttributes } from '@fleet/telemetry';
import {
  chooseMode,
  type Research,
  type Researcher,
  type ResearchMode,
  type ResearchStage,
} from '../research';
import { readWebInput } from './read-web-input';
import type { WebResultData } from './result-data';

/** Options for {@link createWebAgent}. */
export interface CreateWebAgentOptions {
  researcher: Researcher;
}

// The orchestrator appends earlier steps' results to the task text (they also come whole in the
// data part): they are context, not part of what to search.
const EARLIER_STEPS = /\n\nResults of earlier steps:\n[\s\S]*$/;

function workingMessage(mode: ResearchMode): string {
  switch (mode) {
    case 'read':
      return 'Reading the pages…';
    case 'news':
      return 'Searching the news…';
    case 'deep':
      return 'Researching the web in depth…';
    case 'basic':
      return 'Searching the web…';
  }
}

/**
 * The fleet's mark of a failure worth sending again (docs/a2a.md, "Retryable failures"): when the
 * agent is only busy (too many pages waiting to be read), the data part carries `retryable: true`
 * beside the error, so the orchestrator tries the step again.
 */
function retryHint(error: unknown): ErrorStatusOptions {
  const fleetError = toFleetError(error);
  return fleetError.code === 'SERVICE_UNAVAILABLE' && fleetError.isRetryable
    ? { extra: { retryable: true } }
    : {};
}

function resultData(research: Research): WebResultData {
  const { answer } = research;
  return {
    mode: research.mode,
    ...(research.query === undefined ? {} : { query: research.query }),
    ...(research.provider === undefined ? {} : { provider: research.provider }),
    sources: answer.sources,
    results: research.results,
    pages: research.pages,
    answeredBy: answer.answeredBy,
    ...(answer.llmError === undefined ? {} : { llmError: answer.llmError }),
  };
}

/** What the agent says as a stage of its research begins (docs/a2a.md §8): short and human. */
export function describeStage(stage: ResearchStage): string {
  switch (stage.stage) {
    case 'searching':
      return `Searching the web for "${stage.query.length <= 80 ? stage.query : `${stage.query.slice(0, 80)}…`}"…`;
    case 'reading':
      return stage.count <= 1
        ? `Reading ${stage.url}…`
        : `Reading ${stage.url} and ${plural(stage.count - 1, 'more page')}…`;
    case 'summarising':
      return `Summarising ${plural(stage.sources, 'source')}…`;
  }
}

/**
 * The research's events: a WORKING status (with its stage) as each stage begins, the answer's
 * pieces as chunks of the `result` artifact; returns the research.
 */
async function* researchEvents(
  artifactId: string,
  research: AsyncGenerator<string | ResearchStage, Research, undefined>,
): AsyncGenerator<AgentEvent, Research, undefined> {
  for (;;) {
    const next = await research.next();
    if (next.done === true) return next.value;
    if (typeof next.value !== 'string') {
      yield working(describeStage(next.value), { stage: next.value.stage });
    } else if (next.value !== '') {
      yield resultChunk(artifactId, next.value);
    }
  }
}

function summary(research: Research): string {
  const read = research.pages.filter((page) => page.status === 'read').length;
  const cited = plural(research.answer.sources.length, 'source');
  if (research.mode === 'read') return `Read ${plural(read, 'page')}; the answer cites ${cited}.`;
  return `Found ${plural(research.results.length, 'result')} with ${research.provider ?? 'the provider'}, read ${plural(read, 'page')}; the answer cites ${cited}.`;
}

/**
 * The web agent (docs/architecture.md §4): one task per message. It reads the question (text part) and
 * the fleet node input, chooses the mode (the plan's skill, or the question's words: URLs to read,
 * news, depth), searches through the configured provider, reads the top pages under the address
 * guard and answers with `[n]` citations. The `result` artifact: the answer text, streamed in
 * chunks while the model writes it, and (in the last chunk, with the whole text) the data part
 * (`webResultDataSchema`: sources, results, pages). With no provider configured a search task
 * FAILS with how to configure one; a refused or unreadable URL in `read` mode FAILS with the
 * reason; an empty or malformed message is REJECTED. Cancellation stops the search, the fetches
 * and the LLM call.
 *
 * @example
 * const execute = createWebAgent({ researcher });
 */
export function createWebAgent({ researcher }: CreateWebAgentOptions): AgentExecute {
  return async function* webAgent(context: AgentContext): AgentEvents {
    const input = readWebInput(context.message.parts);
    if (input.kind === 'invalid') {
      yield rejected(input.reason);
      return;
    }
    const { node } = input;
    if (node !== undefined) setSessionAttributes(getActiveSpan(), { sessionId: node.sessionId });
    const question = input.question.replace(EARLIER_STEPS, '').trim() || input.question;
    const mode = chooseMode({ text: question, skill: node?.skill });
    try {
      yield working(workingMessage(mode));
      // The answer streams as chunks of the `result` artifact; the last chunk holds it whole.
      const artifactId = randomUUID();
      const research = yield* researchEvents(
        artifactId,
        researcher.stream({
          question,
          tenant: node?.tenant,
          mode,
          context: dependencyContext(node),
          signal: context.signal,
        }),
      );
      yield resultEnd(artifactId, research.answer.text, resultData(research));
      yield completed(summary(research));
    } catch (error) {
      if (context.signal.aborted) throw error;
      yield failed(error, retryHint(error));
    }
  };
}
