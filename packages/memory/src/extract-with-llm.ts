import type OpenAI from 'openai';
import { z } from 'zod';
import { generateObject } from '@fleet/llm';
import type { MemoryUpdate } from './memory-schema';

/** The model the extractor asks, and the client to ask it with. */
export interface MemoryLlm {
  client: OpenAI;
  model: string;
}

/** Longest message sent to the extractor, in characters. */
const MAX_TEXT = 4000;

/** What the model answers: every field optional, `found: false` when the message holds nothing. */
export const llmExtractionSchema = z.object({
  found: z.boolean().describe('True when the message states at least one fact or preference.'),
  name: z.string().max(200).optional().describe('The user’s own name, as they gave it.'),
  company: z.string().max(200).optional().describe('The company or organisation they work for.'),
  jobTitle: z.string().max(200).optional().describe('Their job title or role.'),
  projects: z
    .array(z.string().max(200))
    .max(5)
    .optional()
    .describe('Projects they say they work on, by name.'),
  tone: z
    .enum(['formal', 'casual', 'friendly', 'professional', 'neutral'])
    .optional()
    .describe('The tone they ask answers to have.'),
  detailLevel: z.enum(['brief', 'detailed']).optional().describe('How much detail they ask for.'),
  language: z
    .string()
    .max(40)
    .optional()
    .describe('The language they ask answers in, in English (e.g. "French").'),
});
export type LlmExtraction = z.infer<typeof llmExtractionSchema>;

const INSTRUCTIONS = [
  'You find long-term personal facts and answer preferences in one message a user sent to an assistant.',
  'Extract only what the user states about themselves: their own name, the company they work for, their job title, the projects they work on,',
  'and lasting preferences for answers (tone, detail level, language).',
  'Ignore facts about other people, things they ask the assistant to do once, and anything you would have to guess.',
  'A request that happens to be written in some language is not a language preference; only an explicit ask is.',
  'Answer with found: false and no other field when there is nothing to remember.',
].join(' ');

/** Options for {@link extractWithLlm}. */
export interface ExtractWithLlmOptions {
  llm: MemoryLlm;
  message: string;
  signal?: AbortSignal | undefined;
}

/**
 * Asks the model for the message's facts and preferences with strict structured output
 * (`json_schema`, one small call: temperature 0.1, at most 512 tokens) through `@fleet/llm`'s
 * `generateObject`, which records the LLM span.
 *
 * @throws the errors of `generateObject` (upstream failures, time-outs, answers that do not fit).
 * @example
 * const update = await extractWithLlm({ llm: { client, model: 'gpt-4o-mini' }, message: 'I am Ada' });
 */
export async function extractWithLlm({
  llm,
  message,
  signal,
}: ExtractWithLlmOptions): Promise<MemoryUpdate> {
  const { object } = await generateObject({
    client: llm.client,
    model: llm.model,
    schema: llmExtractionSchema,
    schemaName: 'user_memory',
    schemaDescription: 'Personal facts and answer preferences the user stated in the message.',
    messages: [
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: message.slice(0, MAX_TEXT) },
    ],
    temperature: 0.1,
    maxTokens: 512,
    ...(signal === undefined ? {} : { signal }),
  });
  const update: MemoryUpdate = { facts: {}, preferences: {} };
  if (!object.found) return update;
  if (object.name !== undefined) update.facts.name = object.name;
  if (object.company !== undefined) update.facts.company = object.company;
  if (object.jobTitle !== undefined) update.facts.jobTitle = object.jobTitle;
  if (object.projects !== undefined && object.projects.length > 0) {
    update.facts.projects = object.projects;
  }
  if (object.tone !== undefined) update.preferences.tone = object.tone;
  if (object.detailLevel !== undefined) update.preferences.detailLevel = object.detailLevel;
  if (object.language !== undefined) update.preferences.language = object.language;
  return update;
}
