import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { safeParseJson, validationErrorFromZod } from '@fleet/errors';
import { setSpanOutput, SpanKind, withSpan, type WithSpanOptions } from '@fleet/telemetry';
import { completeChat, toLlmMessage, type TokenUsage } from './complete-chat';
import { StructuredOutputError } from './structured-output-error';
import { toStrictJsonSchema } from './to-strict-json-schema';

/** Options for {@link generateObject}. */
export interface GenerateObjectOptions<TSchema extends z.ZodType> {
  client: OpenAI;
  model: string;
  /** What the answer must be: an object schema (see `toStrictJsonSchema` for what it may use). */
  schema: TSchema;
  /** `response_format.json_schema.name`: letters, digits, `_` and `-`, at most 64. */
  schemaName: string;
  /** `response_format.json_schema.description`, which the model reads. */
  schemaDescription?: string;
  messages: readonly ChatCompletionMessageParam[];
  temperature?: number;
  /** Sent as `max_tokens`, which every OpenAI-compatible server understands. */
  maxTokens?: number;
  signal?: AbortSignal;
  /** The tracer for the `llm.generate-object` span. @default the global one */
  tracer?: WithSpanOptions['tracer'];
}

/** What {@link generateObject} returns. */
export interface GenerateObjectResult<T> {
  /** The model's answer, parsed and validated by the schema (defaults applied). */
  object: T;
  /** Undefined when the upstream reported none. */
  usage: TokenUsage | undefined;
  /** The model's answer as text, exactly as it came. */
  raw: string;
}

/** Some local models wrap JSON in a Markdown fence even in JSON mode. */
const FENCED = /^\s*```(?:json)?\s*\n?([\s\S]*?)\n?\s*```\s*$/i;

/**
 * Asks the model for JSON that fits `schema` through strict structured output
 * (`response_format: { type: 'json_schema', json_schema: { name, strict: true, schema } }`),
 * then parses and validates the answer with the same zod schema. Optional fields travel as
 * nullable ones (strict mode requires every property); a `null` there comes back as an absent
 * field. A Markdown code fence around the JSON is tolerated.
 *
 * The call runs in an `llm.generate-object` span (kind LLM) with the model, messages, answer and
 * token counts as OpenInference attributes.
 *
 * @throws StructuredOutputError (a `ValidationError` carrying the raw text) when the answer is
 *   not JSON, does not fit the schema, is empty, or is a refusal.
 * @throws UpstreamError, UpstreamTimeoutError, ConnectionError or AbortError when the call fails
 *   (see `toLlmError`).
 * @throws TypeError when the schema has no strict JSON Schema form.
 * @example
 * const { object: plan } = await generateObject({
 *   client, model: 'gpt-4o-mini', schema: planSchema, schemaName: 'plan',
 *   messages: [{ role: 'system', content: prompt }, { role: 'user', content: request }],
 * });
 */
export async function generateObject<TSchema extends z.ZodType>(
  options: GenerateObjectOptions<TSchema>,
): Promise<GenerateObjectResult<z.output<TSchema>>> {
  const {
    client,
    model,
    schema,
    schemaName,
    schemaDescription,
    messages,
    temperature,
    maxTokens,
    signal,
    tracer,
  } = options;
  const strict = toStrictJsonSchema(schema);
  const inputMessages = messages.map(toLlmMessage);
  return withSpan(
    { name: 'llm.generate-object', kind: SpanKind.LLM, tracer, input: { messages: inputMessages } },
    async (span) => {
      const {
        content: raw,
        finishReason,
        usage,
        completion,
      } = await completeChat({
        client,
        model,
        messages,
        temperature,
        maxTokens,
        responseFormat: {
          type: 'json_schema',
          json_schema: {
            name: schemaName,
            strict: true,
            schema: strict.jsonSchema,
            ...(schemaDescription === undefined ? {} : { description: schemaDescription }),
          },
        },
        invocationParameters: {
          response_format: { type: 'json_schema', name: schemaName, strict: true },
        },
        signal,
        span,
      });
      const choice = completion.choices[0];
      setSpanOutput(span, raw);

      const refusal = choice?.message.refusal;
      if (refusal) {
        throw new StructuredOutputError(`The model refused to answer: ${refusal}`, {
          text: refusal,
        });
      }
      if (raw.trim() === '') {
        throw new StructuredOutputError('The model returned no content.', { text: raw });
      }
      const cut = finishReason === 'length' ? ' (the answer hit the token limit)' : '';
      const text = FENCED.exec(raw)?.[1] ?? raw;
      const parsedJson = safeParseJson({
        text,
        schema: z.unknown(),
        subject: "The model's output",
      });
      if (!parsedJson.success) {
        throw new StructuredOutputError(`${parsedJson.error.message}${cut}`, {
          text: raw,
          cause: parsedJson.error,
        });
      }
      const validated = schema.safeParse(strict.restoreOptionalFields(parsedJson.value));
      if (!validated.success) {
        const error = validationErrorFromZod(validated.error, { subject: "The model's output" });
        throw new StructuredOutputError(`${error.message}${cut}`, {
          text: raw,
          cause: validated.error,
          ...(error.details ? { details: error.details } : {}),
        });
      }
      return { object: validated.data, usage, raw };
    },
  );
}
