import { isToolPermitted } from '@fleet/a2a';
import type { AgentContext } from '@fleet/a2a/server';
import type { AgentEvents } from '@fleet/agent-kit';
import { NotFoundError, PermissionDeniedError, ServiceUnavailableError } from '@fleet/errors';
import { getActiveSpan, setSessionAttributes } from '@fleet/telemetry';
import { policyRefusal } from './check-call';
import { findJsonArguments } from './find-json-arguments';
import { proposeCalls } from './propose-calls';
import type { ToolsTask } from './read-tools-input';
import { resolveTool } from './resolve-tool';
import { runWithModel } from './run-with-model';
import { requiredArguments } from './tools-card';
import type { ToolsAgentSettings } from './tools-agent-settings';
import { argumentsNeeded, toolNeeded } from './what-is-needed';

/**
 * A step's first message. The tool is the one the plan's skill names (a tool skill id), else one
 * named in the text (`<server>/<tool>`, or a bare name only one server has). A named tool the
 * tool policy does not permit ends the step REJECTED before anything is sent. With a model, it
 * picks tools and arguments among the permitted ones (`runWithModel`); offline, the named tool is
 * called with the JSON object in the text (or the `{ arguments }` data part; `{}` when it requires
 * none), and a step without them fails saying exactly what is needed (`argumentsNeeded`,
 * `toolNeeded`).
 *
 * @example
 * yield* startTask(settings, context, input.task);
 */
export async function* startTask(
  settings: ToolsAgentSettings,
  context: AgentContext,
  task: ToolsTask,
): AgentEvents {
  setSessionAttributes(getActiveSpan(), { sessionId: task.sessionId });
  const tools = settings.catalog.tools();
  if (tools.length === 0) {
    throw new ServiceUnavailableError(
      'The tools agent has no tools: no MCP server is configured or none has started (see its card).',
      { retryable: false },
    );
  }
  const named = resolveTool(tools, { skill: task.skill, text: task.text });
  if (
    named.kind === 'tool' &&
    !isToolPermitted(task.toolPolicy, named.tool.server, named.tool.tool.name)
  ) {
    throw policyRefusal(named.tool.skillId);
  }
  if (named.kind === 'unknown') {
    throw new NotFoundError(
      `No started MCP server offers the tool ${named.name}. Tools offered: ${tools
        .slice(0, 20)
        .map((entry) => entry.skillId)
        .join(', ')}.`,
      { details: { tool: named.name } },
    );
  }
  const permitted = tools.filter((entry) =>
    isToolPermitted(task.toolPolicy, entry.server, entry.tool.name),
  );
  if (permitted.length === 0) {
    throw new PermissionDeniedError(
      'The tool policy of this request permits none of the tools offered, so nothing was called.',
    );
  }
  if (settings.llm !== undefined) {
    const offered = named.kind === 'tool' && task.skill !== undefined ? [named.tool] : permitted;
    yield* runWithModel(settings, context, { task, offered, llm: settings.llm });
    return;
  }
  if (named.kind !== 'tool') {
    throw toolNeeded({
      offered: permitted,
      candidates: named.kind === 'ambiguous' ? named.candidates : [],
    });
  }
  const entry = named.tool;
  const args =
    findJsonArguments(task.text) ??
    task.dataArguments ??
    (requiredArguments(entry.tool).length === 0 ? {} : undefined);
  if (args === undefined) throw argumentsNeeded(entry);
  yield* proposeCalls(settings, context, {
    task,
    calls: [{ server: entry.server, tool: entry.tool.name, arguments: args }],
    revision: 1,
  });
}
