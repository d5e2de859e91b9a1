import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';
import { calculate, CALCULATOR_NAMES, formatNumber } from './calculate';
import { currentTime } from './current-time';
import { dateDiff } from './date-diff';
import { ToolError } from './tool-error';

/** What a tool's run is given besides its arguments. */
export interface ToolRunOptions {
  /** Aborts when the task is cancelled; a tool that waits on something else stops with it. */
  signal?: AbortSignal | undefined;
}

/** A tool the reasoning loop offers the model, as OpenAI function calling describes it. */
export interface ReasoningTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /**
   * Runs the tool on the model's raw arguments (a JSON string) and answers with the text the model
   * reads back (the built-in tools answer at once, an MCP tool once its server has).
   * @throws ToolError when the arguments do not fit or the tool cannot do what was asked; the loop
   *   hands its message to the model. Any other error is also handed over, except an AbortError
   *   while the task is being cancelled.
   */
  run(argumentsJson: string, options?: ToolRunOptions): string | Promise<string>;
}

/** A built-in tool: it answers at once. */
export interface BuiltInTool extends ReasoningTool {
  run(argumentsJson: string): string;
}

/** Options for {@link createReasoningTools}. */
export interface CreateReasoningToolsOptions {
  /** The zone `current_time` uses when the model names none. @default 'UTC' */
  defaultTimeZone?: string;
  /** The clock. @default () => new Date() */
  now?: () => Date;
}

const calculateArguments = z.object({
  expression: z.string({ error: 'expression must be a string' }),
});
const currentTimeArguments = z.object({
  timezone: z.string({ error: 'timezone must be a string' }).nullish(),
});
const dateDiffArguments = z.object({
  start: z.string({ error: 'start must be a date string' }),
  end: z.string({ error: 'end must be a date string' }),
});

function parseArguments<TSchema extends z.ZodType>(
  tool: string,
  text: string,
  schema: TSchema,
): z.output<TSchema> {
  const parsed = safeParseJson({
    text: text.trim() === '' ? '{}' : text,
    schema,
    subject: `The arguments of ${tool}`,
  });
  if (!parsed.success) throw new ToolError(parsed.error.message, { cause: parsed.error });
  return parsed.value;
}

/**
 * The reasoning agent's tools: `calculate` (a safe arithmetic evaluator), `current_time` (with an
 * optional IANA time zone) and `date_diff` (days between two dates).
 *
 * @example
 * const tools = createReasoningTools({ defaultTimeZone: 'Europe/Berlin' });
 * tools.find((tool) => tool.name === 'calculate')?.run('{"expression":"6*7"}'); // '42'
 */
export function createReasoningTools({
  defaultTimeZone = 'UTC',
  now = () => new Date(),
}: CreateReasoningToolsOptions = {}): BuiltInTool[] {
  return [
    {
      name: 'calculate',
      description: `Evaluates an arithmetic expression exactly and returns the number. Use it for every calculation instead of doing arithmetic in your head. Supports + - * / % ^ (power), ! (factorial), parentheses, the constants ${CALCULATOR_NAMES.constants.join(', ')} and the functions ${CALCULATOR_NAMES.functions.join(', ')} (round(x, digits), log(x, base)). Percentages: write 15% of 80 as 0.15 * 80.`,
      parameters: {
        type: 'object',
        properties: {
          expression: {
            type: 'string',
            description: 'The expression, e.g. "(17 + 25) * 3" or "sqrt(2) * 10".',
          },
        },
        required: ['expression'],
        additionalProperties: false,
      },
      run(argumentsJson) {
        const { expression } = parseArguments('calculate', argumentsJson, calculateArguments);
        return formatNumber(calculate(expression));
      },
    },
    {
      name: 'current_time',
      description: `Returns the current date, time, weekday and UTC offset. Without a time zone it uses ${defaultTimeZone}.`,
      parameters: {
        type: 'object',
        properties: {
          timezone: {
            type: 'string',
            description: 'An IANA time zone such as "Europe/Berlin" or "America/New_York".',
          },
        },
        additionalProperties: false,
      },
      run(argumentsJson) {
        const { timezone } = parseArguments('current_time', argumentsJson, currentTimeArguments);
        return JSON.stringify(currentTime({ timeZone: timezone ?? defaultTimeZone, now: now() }));
      },
    },
    {
      name: 'date_diff',
      description:
        'Counts the calendar days from one date to another (negative when the end is earlier). Dates are YYYY-MM-DD; get today from current_time.',
      parameters: {
        type: 'object',
        properties: {
          start: { type: 'string', description: 'The first date, YYYY-MM-DD.' },
          end: { type: 'string', description: 'The second date, YYYY-MM-DD.' },
        },
        required: ['start', 'end'],
        additionalProperties: false,
      },
      run(argumentsJson) {
        return JSON.stringify(
          dateDiff(parseArguments('date_diff', argumentsJson, dateDiffArguments)),
        );
      },
    },
  ];
}
