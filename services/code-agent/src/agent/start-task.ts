import type { AgentContext } from '@fleet/a2a/server';
import { working, type AgentEvents } from '@fleet/agent-kit';
import { getActiveSpan, setSessionAttributes } from '@fleet/telemetry';
import type { CodeAgentSettings } from './code-agent-settings';
import { propose } from './propose';
import type { CodeTask } from './read-code-input';

/**
 * A task's first message: the writer produces the program (the LLM, or offline the task's own
 * ```python block), which is then proposed (`propose`).
 *
 * @example
 * yield* startTask(settings, context, input.task);
 */
export async function* startTask(
  settings: CodeAgentSettings,
  context: AgentContext,
  task: CodeTask,
): AgentEvents {
  const { writer } = settings;
  setSessionAttributes(getActiveSpan(), { sessionId: task.sessionId });
  yield working(writer.online ? 'Writing the program…' : 'Reading the program in the task…', {
    stage: 'writing',
  });
  const written = await writer.write(
    { task: task.task, dependencyOutputs: task.dependencyOutputs, dataFiles: task.dataFiles },
    context.signal,
  );
  yield* propose(settings, context, { task, written, attempt: 1, previousAttempts: [] });
}
