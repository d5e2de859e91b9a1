import type OpenAI from 'openai';
import { generateObject } from '@fleet/llm';
import { chooseActionWithRules, type ActionRequest } from './choose-action-with-rules';
import { mailActionSchema, type MailAction } from './mail-action';

/** The LLM the agent may use: client and model. Undefined is offline mode. */
export interface LlmSettings {
  client: OpenAI;
  model: string;
}

/** The chosen action and how it was chosen. */
export interface ChosenAction {
  action: MailAction;
  chosenBy: 'llm' | 'rules';
  /** Why the LLM's choice was not used, when the rules chose instead. */
  llmError?: string;
}

/** Chooses what a task asks of the mail agent. */
export interface ActionChooser {
  choose(request: ActionRequest & { signal?: AbortSignal }): Promise<ChosenAction>;
}

/** Options for {@link createActionChooser}. */
export interface CreateActionChooserOptions {
  llm: LlmSettings | undefined;
  /** The From of mail the agent writes, so the model signs as the right person. */
  from: string;
  logger?: { warn(object: object, message?: string): void };
}

/** The system prompt of the action choice. */
export const CHOOSE_INSTRUCTIONS = [
  'You are the mail agent of a multi-agent system. Choose the one mail action the task asks for and fill in its fields.',
  'search: find messages (inbox by default; "sent" for mail the user sent, "drafts" for drafts) with short server-side criteria (from, toContains, subject, text, since, before, unseen). Use few, short criteria: IMAP matches substrings.',
  'read: open one message: give its uid when an earlier step found it, otherwise criteria that match it (the newest match is read).',
  'draft: write a mail and save it as a draft. send: write a mail and send it (a person approves first). reply: answer a message (found by uid or criteria) in its thread.',
  'For draft, send and reply write the complete plain-text body, with a greeting and a sign-off, using the results of earlier steps when the task refers to them. Never invent addresses: use only addresses given in the task or the earlier results.',
  'Leave fields that do not apply empty (null).',
].join(' ');

function renderRequest(request: ActionRequest, from: string): string {
  const now = request.now ?? new Date();
  const sections = [
    `Today: ${now.toISOString().slice(0, 10)}`,
    `The user's address: ${from}`,
    `Task: ${request.task}`,
  ];
  if (request.skill !== undefined) sections.push(`Skill the plan chose: ${request.skill}`);
  if (request.context.length > 0) {
    sections.push(
      `Results of earlier steps:\n${request.context.map((entry) => `- ${entry.label}: ${entry.summary.slice(0, 4000)}`).join('\n')}`,
    );
  }
  return sections.join('\n\n');
}

/**
 * Chooses the action with the LLM (strict structured output, in an LLM span) and falls back to
 * the offline rules when there is no LLM or the call fails (the failure is logged and reported).
 *
 * @example
 * const chooser = createActionChooser({ llm, from: account.from });
 * const { action } = await chooser.choose({ task: 'find mails from bob', context: [] });
 */
export function createActionChooser({
  llm,
  from,
  logger,
}: CreateActionChooserOptions): ActionChooser {
  return {
    async choose(request) {
      if (llm === undefined) return { action: chooseActionWithRules(request), chosenBy: 'rules' };
      try {
        const { object } = await generateObject({
          client: llm.client,
          model: llm.model,
          schema: mailActionSchema,
          schemaName: 'mail_action',
          schemaDescription: 'The mail action the task asks for.',
          messages: [
            { role: 'system', content: CHOOSE_INSTRUCTIONS },
            { role: 'user', content: renderRequest(request, from) },
          ],
          temperature: 0,
          maxTokens: 1500,
          ...(request.signal === undefined ? {} : { signal: request.signal }),
        });
        return { action: object, chosenBy: 'llm' };
      } catch (error) {
        if (request.signal?.aborted === true) throw error;
        const message = error instanceof Error ? error.message : String(error);
        logger?.warn(
          { err: error },
          'choosing the mail action with the LLM failed; using the rules',
        );
        return { action: chooseActionWithRules(request), chosenBy: 'rules', llmError: message };
      }
    },
  };
}
