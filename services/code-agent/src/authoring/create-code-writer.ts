import type OpenAI from 'openai';
import { NotImplementedError } from '@fleet/errors';
import type { WithSpanOptions } from '@fleet/telemetry';
import type { CodeRequest } from './code-request';
import { extractPython } from './extract-python';
import { writeCodeWithLlm } from './write-code-with-llm';

/** Where a program came from: written by the model, or taken from the task as it was. */
export type CodeSource = 'llm' | 'task';

/** A program to run. */
export interface WrittenCode {
  code: string;
  source: CodeSource;
}

/** Writes the program for a task, and fixes a failed one when it can. */
export interface CodeWriter {
  /** True with an LLM: it writes programs and can fix failed ones. */
  readonly online: boolean;
  write(request: CodeRequest, signal?: AbortSignal): Promise<WrittenCode>;
}

/** Options for {@link createCodeWriter}. */
export interface CreateCodeWriterOptions {
  /** The LLM; undefined in offline mode. */
  llm?: { client: OpenAI; model: string } | undefined;
  tracer?: WithSpanOptions['tracer'];
}

/** Why offline mode runs nothing for a task without a program. */
export const OFFLINE_NO_CODE =
  'The code agent has no LLM to write code (offline mode: OPENAI_API_KEY and OPENAI_BASE_URL are unset), so it runs only a program the task itself contains in a ```python fenced block, and this task has none. Configure an upstream LLM, or put the program in the task.';

/**
 * The code writer: with an LLM, the model writes the program from the task and the earlier steps'
 * results (and fixes a failed one); offline, the program is the task's own ```python block, run as
 * it is, and a task without one fails with {@link OFFLINE_NO_CODE}.
 *
 * @example
 * const writer = createCodeWriter({ llm: client ? { client, model } : undefined });
 * const { code, source } = await writer.write({ task, dependencyOutputs });
 */
export function createCodeWriter({ llm, tracer }: CreateCodeWriterOptions = {}): CodeWriter {
  if (llm === undefined) {
    return {
      online: false,
      write(request) {
        const code = extractPython(request.task);
        if (code === undefined) return Promise.reject(new NotImplementedError(OFFLINE_NO_CODE));
        return Promise.resolve({ code, source: 'task' });
      },
    };
  }
  return {
    online: true,
    async write(request, signal) {
      const code = await writeCodeWithLlm({
        client: llm.client,
        model: llm.model,
        request,
        signal,
        ...(tracer ? { tracer } : {}),
      });
      return { code, source: 'llm' };
    },
  };
}
