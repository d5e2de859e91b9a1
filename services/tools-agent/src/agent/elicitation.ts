import { dataPart, textPart } from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import type {
  McpElicitationHandler,
  McpElicitationRequest,
  McpElicitationResult,
} from '@fleet/mcp';
import type { ToolQuestions } from './tool-questions';

/** A field of an elicitation form, read liberally. */
interface FormField {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  oneOf?: { const?: unknown; title?: string }[];
  items?: { enum?: unknown[]; anyOf?: { const?: unknown }[] };
}

type Content = Extract<McpElicitationResult, { action: 'accept' }>['content'];

const MAX_QUESTION_CHARS = 4_000;
const DECLINE = /^(decline|declined|no|refuse|i decline|do not|don't)\.?$/i;
const CANCEL = /^(cancel|stop|abort)\.?$/i;

function fieldsOf(request: McpElicitationRequest): [string, FormField][] {
  const properties = (request.requestedSchema as { properties?: Record<string, FormField> })
    .properties;
  return Object.entries(properties ?? {}).slice(0, 50);
}

function requiredOf(request: McpElicitationRequest): Set<string> {
  const required = (request.requestedSchema as { required?: unknown }).required;
  return new Set(
    Array.isArray(required) ? required.filter((name) => typeof name === 'string') : [],
  );
}

function choices(field: FormField): unknown[] | undefined {
  return (
    field.enum ??
    field.oneOf?.map((option) => option.const) ??
    field.items?.enum ??
    field.items?.anyOf?.map((option) => option.const)
  );
}

function describeField(name: string, field: FormField, required: boolean): string {
  const options = choices(field);
  const kind = options === undefined ? (field.type ?? 'text') : `one of ${options.join(', ')}`;
  const about = field.description ?? field.title;
  return `- ${name} (${kind}${required ? ', required' : ''})${about === undefined ? '' : `: ${about}`}`;
}

/**
 * The INPUT_REQUIRED status that puts an MCP server's question to a person: the server's words,
 * the fields it wants and how to answer (a single value, JSON, or one `field: value` per line;
 * "decline" or "cancel"), and a `{ mcpQuestion }` data part with the server, the tool and the
 * requested schema for clients that render forms.
 *
 * @example
 * yield elicitationQuestion({ skillId: 'everything/trigger-elicitation-request', request });
 */
export function elicitationQuestion({
  skillId,
  request,
}: {
  skillId: string;
  request: McpElicitationRequest;
}): AgentEvent {
  const fields = fieldsOf(request);
  const required = requiredOf(request);
  const how =
    fields.length === 1
      ? 'Answer with the value.'
      : 'Answer with a JSON object, or one "field: value" per line.';
  const text = [
    `${skillId} asks: ${request.message}`.slice(0, MAX_QUESTION_CHARS),
    ...(fields.length === 0
      ? []
      : [
          '',
          'It wants:',
          ...fields.map(([name, field]) => describeField(name, field, required.has(name))),
        ]),
    '',
    `${fields.length === 0 ? 'Answer "yes" to go on.' : how} Say "decline" to refuse or "cancel" to stop.`,
  ].join('\n');
  return {
    type: 'status',
    state: 'TASK_STATE_INPUT_REQUIRED',
    message: [
      textPart(text),
      dataPart({
        mcpQuestion: {
          tool: skillId,
          message: request.message.slice(0, MAX_QUESTION_CHARS),
          requestedSchema: request.requestedSchema,
        },
      }),
    ],
  };
}

function coerce(value: string, field: FormField): string | number | boolean | string[] {
  const trimmed = value.trim();
  if (field.type === 'number' || field.type === 'integer') {
    const number = Number(trimmed);
    return Number.isFinite(number) && trimmed !== '' ? number : trimmed;
  }
  if (field.type === 'boolean') {
    if (/^(yes|y|true|on|1|ok|sure)$/i.test(trimmed)) return true;
    if (/^(no|n|false|off|0)$/i.test(trimmed)) return false;
    return trimmed;
  }
  if (field.type === 'array') {
    return trimmed
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  }
  return trimmed;
}

function fromJson(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A person's words as the answer to an elicitation: "decline" (or no) and "cancel" say so; a JSON
 * object is the content; a form of one field takes the whole answer as its value; otherwise
 * `field: value` (or `field = value`) lines fill the fields they name. Values are converted to the
 * field's type (numbers, yes/no, comma-separated lists). The MCP client checks the content against
 * the requested schema before it is sent.
 *
 * @example
 * answerElicitation('blue', request); // { action: 'accept', content: { color: 'blue' } }
 */
export function answerElicitation(
  answer: string,
  request: McpElicitationRequest,
): McpElicitationResult {
  const text = answer.trim();
  if (DECLINE.test(text)) return { action: 'decline' };
  if (CANCEL.test(text)) return { action: 'cancel' };
  const fields = new Map(fieldsOf(request));
  const content: Content = {};
  const json = fromJson(text);
  if (json !== undefined) {
    for (const [name, value] of Object.entries(json)) {
      const field = fields.get(name);
      if (field === undefined) continue;
      if (typeof value === 'string') content[name] = coerce(value, field);
      else if (typeof value === 'number' || typeof value === 'boolean') content[name] = value;
      else if (Array.isArray(value)) content[name] = value.map(String);
    }
    return { action: 'accept', content };
  }
  if (fields.size === 1) {
    const [[name, field]] = [...fields.entries()] as [[string, FormField]];
    content[name] = coerce(text, field);
    return { action: 'accept', content };
  }
  for (const line of text.split('\n')) {
    const match = /^\s*([^:=]+?)\s*[:=]\s*(.*)$/.exec(line);
    if (match === null) continue;
    const [, name = '', value = ''] = match;
    const field = fields.get(name);
    if (field !== undefined) content[name] = coerce(value, field);
  }
  return { action: 'accept', content };
}

/**
 * The elicitation handler of one call: the question interrupts the task (INPUT_REQUIRED, through
 * `questions`), and the person's answer goes back to the server; nobody answering before the
 * call's time (the handler's signal) is a `cancel`.
 *
 * @example
 * connection.callTool(name, args, { onElicitation: elicitThroughTask(questions, taskId, skillId) });
 */
export function elicitThroughTask(
  questions: ToolQuestions,
  taskId: string,
  skillId: string,
): McpElicitationHandler {
  return async (request, { signal }) => {
    const answer = await questions.ask(taskId, elicitationQuestion({ skillId, request }), signal);
    return answer === undefined ? { action: 'cancel' } : answerElicitation(answer, request);
  };
}
