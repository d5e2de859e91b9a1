import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { UpstreamError } from '@fleet/errors';
import { completeChat, currentDateLine, systemClock, type Clock } from '@fleet/llm';
import { setSpanOutput, SpanKind, withSpan, type WithSpanOptions } from '@fleet/telemetry';
import { describeDataFiles } from '../data-files';
import { SANDBOX_DATA_DIR } from '../sandbox';
import { head, tail } from '../text';
import type { CodeRequest } from './code-request';
import { extractPython } from './extract-python';

/** The file the earlier steps' results are given to the program in. */
export const INPUTS_FILENAME = 'inputs.json';

/** Characters of each earlier step's data shown to the model. */
const MAX_DATA_LENGTH = 4_000;
/** Characters of each earlier step's summary shown to the model. */
const MAX_SUMMARY_LENGTH = 4_000;
/** Characters of a failed attempt's output shown to the model. */
const MAX_OUTPUT_LENGTH = 4_000;

/** The system prompt of the code-writing call. */
export const CODE_INSTRUCTIONS = [
  'You write one complete, self-contained Python 3.11 program that carries out the task.',
  'It runs in a sandbox: the standard library plus numpy, pandas and matplotlib (nothing else can be installed), no network, no input from stdin, limited CPU time and memory.',
  `The results of earlier steps, if any, are in the JSON file ${INPUTS_FILENAME} in the current directory: an object keyed by step id, each { agent, summary, data }.`,
  `Files given with the task, if any, are listed in the request and can be read (not written) at ${SANDBOX_DATA_DIR}/<name>.`,
  "Print the results a person needs to stdout, concisely. Files the program writes to the current directory are returned to the user: draw charts with matplotlib (it has no display: plt.savefig('chart.png'), never plt.show()).",
  'Reply with the program only, in a single ```python fenced block, and nothing else.',
].join(' ');

/** The user message of the code-writing call. */
export function renderCodePrompt(request: CodeRequest): string {
  const sections = [`Task: ${request.task}`];
  const steps = Object.entries(request.dependencyOutputs);
  if (steps.length > 0) {
    const lines = steps.map(([id, output]) => {
      const data =
        output.data === undefined
          ? ''
          : `\n  data: ${head(JSON.stringify(output.data), MAX_DATA_LENGTH)}`;
      const state = output.partial === true ? ' (failed)' : '';
      return `- ${id} (${output.agent})${state}: ${head(output.summary, MAX_SUMMARY_LENGTH)}${data}`;
    });
    sections.push(`Results of earlier steps (also in ${INPUTS_FILENAME}):\n${lines.join('\n')}`);
  }
  if (request.dataFiles !== undefined && request.dataFiles.length > 0) {
    sections.push(
      `Files given with the task, read-only in ${SANDBOX_DATA_DIR}:\n${describeDataFiles(request.dataFiles)}`,
    );
  }
  if (request.instructions !== undefined && request.instructions.trim() !== '') {
    sections.push(`Instructions from the person who reviews the code: ${request.instructions}`);
  }
  const previous = request.previousAttempt;
  if (previous !== undefined) {
    sections.push(
      [
        'The previous program failed. Fix it.',
        `Program:\n\`\`\`python\n${previous.code}\`\`\``,
        `Exit code: ${String(previous.exitCode)}${previous.limitMessage ? ` — ${previous.limitMessage}` : ''}`,
        `stderr:\n${tail(previous.stderr, MAX_OUTPUT_LENGTH)}`,
        `stdout:\n${tail(previous.stdout, MAX_OUTPUT_LENGTH)}`,
      ].join('\n\n'),
    );
  }
  return sections.join('\n\n');
}

/** Options for {@link writeCodeWithLlm}. */
export interface WriteCodeWithLlmOptions {
  client: OpenAI;
  model: string;
  request: CodeRequest;
  signal?: AbortSignal | undefined;
  tracer?: WithSpanOptions['tracer'];
  /** The clock the prompt's date line reads. @default the system clock */
  clock?: Clock | undefined;
}

/**
 * Asks the model for the program, in an LLM span (`code_agent.write_code`): the task, the earlier
 * steps' results and, when fixing, the failed program with its output. The reply's first
 * ```python block (or an unmarked one) is the program.
 *
 * @throws the LLM call's error (`toLlmError`); UpstreamError when the reply holds no program.
 * @example
 * const code = await writeCodeWithLlm({ client, model, request: { task, dependencyOutputs: {} } });
 */
export async function writeCodeWithLlm({
  client,
  model,
  request,
  signal,
  tracer,
  clock = systemClock,
}: WriteCodeWithLlmOptions): Promise<string> {
  const messages: ChatCompletionMessageParam[] = [
    // The date first: "today", "this month" or an age is computed from it, not from training data.
    { role: 'system', content: `${currentDateLine(clock())}\n${CODE_INSTRUCTIONS}` },
    { role: 'user', content: renderCodePrompt(request) },
  ];
  return withSpan(
    {
      name: request.previousAttempt === undefined ? 'code_agent.write_code' : 'code_agent.fix_code',
      kind: SpanKind.LLM,
      input: request.task,
      tracer,
    },
    async (span) => {
      const { content } = await completeChat({
        client,
        model,
        messages,
        temperature: 0,
        signal,
        span,
      });

      const code = extractPython(content, { allowUnlabelled: true });
      if (code === undefined) {
        throw new UpstreamError(
          'The model replied without a Python program (no ```python fenced block), so there is nothing to run.',
          { status: 502, details: { reply: content.slice(0, 500) } },
        );
      }
      setSpanOutput(span, code);
      return code;
    },
  );
}
