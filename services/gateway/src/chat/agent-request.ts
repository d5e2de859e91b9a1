import { z } from 'zod';
import { BadRequestError } from '@fleet/errors';
import { boundedArray, boundedValidationError, MAX_ITEM_ISSUES } from '@fleet/http';
import type { ChatCompletionRequest } from './chat-completion-request';
import { collectAttachments, type AttachmentRef } from '../files/attachments';
import { messageText } from './message-text';

/** One part of an array `content` (`text`, `image_url`, `input_audio`, …); a text part's text is a string. */
const contentPartSchema = z.looseObject(
  {
    type: z.string({ error: 'a content part needs a string type' }),
    text: z.string({ error: "a content part's text must be a string" }).optional(),
  },
  { error: 'a content part must be an object with a type' },
);

/** Only the first problem of a message's parts is named: checking stops there. */
const contentPartsSchema = boundedArray(contentPartSchema, {
  error: 'content must be an array of content parts',
  maxIssues: 1,
});

/**
 * What is wrong with a message's `content`, which OpenAI defines as a string or an array of
 * content parts; undefined when nothing is.
 */
function contentIssue(content: unknown): { path: PropertyKey[]; message: string } | undefined {
  if (typeof content === 'string') return undefined;
  if (Array.isArray(content)) {
    const first = contentPartsSchema.safeParse(content).error?.issues[0];
    return first === undefined ? undefined : { path: first.path, message: first.message };
  }
  return {
    path: [],
    message: `content must be a string or an array of content parts, not ${describe(content)}`,
  };
}

/** Roles whose `content` may be null or absent (an assistant turn that only called tools). */
const CONTENT_OPTIONAL_ROLES = new Set(['assistant']);

/**
 * What the agent routes (orchestration, reasoning) need of `messages`, beyond
 * {@link chatCompletionRequestSchema}: every `content` is a string or content parts (null only on
 * assistant turns), and there is a user message whose text is not blank, since the last one is
 * the request the agents work on and everything before it is history. Passthrough does not use
 * this: the upstream judges what it accepts.
 */
export const agentRequestSchema = z.looseObject({
  messages: boundedArray(z.looseObject({ role: z.string(), content: z.unknown() }), {
    error: 'messages must be an array of messages',
  }).superRefine((messages, context) => {
    // Checked until the first few problems, as the request schema's arrays (boundedArray): past
    // them only the last user message is looked for.
    let lastUser = -1;
    let invalid = 0;
    for (const [index, message] of messages.entries()) {
      if (message.role === 'user') lastUser = index;
      if (invalid >= MAX_ITEM_ISSUES) continue;
      const issue = messageContentIssue(message);
      if (issue !== undefined) {
        invalid += 1;
        context.addIssue({
          code: 'custom',
          path: [index, 'content', ...issue.path],
          message: issue.message,
        });
      }
    }
    const lastUserValid =
      lastUser !== -1 && messageContentIssue(messages[lastUser] ?? {}) === undefined;
    if (lastUser === -1) {
      context.addIssue({
        code: 'custom',
        path: [],
        message: 'messages must contain a user message: its text is the request the agents work on',
      });
      return;
    }
    if (lastUserValid && messageText(messages[lastUser]?.content).trim() === '') {
      context.addIssue({
        code: 'custom',
        path: [lastUser, 'content'],
        message: 'the last user message must have text: it is the request the agents work on',
      });
    }
  }),
});

/** What is wrong with a message's `content` (see {@link contentIssue}), given its role. */
function messageContentIssue(message: {
  role?: string;
  content?: unknown;
}): ReturnType<typeof contentIssue> {
  const optional =
    CONTENT_OPTIONAL_ROLES.has(message.role ?? '') &&
    (message.content === null || message.content === undefined);
  return optional ? undefined : contentIssue(message.content);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** Characters of message text an agent-route request may carry by default (GATEWAY_AGENT_TEXT_LIMIT). */
export const DEFAULT_AGENT_TEXT_LIMIT = 262_144;

/**
 * Checks a request bound for an agent route before any session or A2A call: a client's mistake is
 * a 400 naming the field (`messages[0].content`), not a failed run; text beyond `maxTextChars`
 * (all messages together) is a 400 naming `messages`.
 *
 * @throws ValidationError (400) naming the first problems (at most five are looked for).
 * @example
 * assertAgentRequest(request, 'orchestration');
 */
export function assertAgentRequest(
  request: ChatCompletionRequest,
  mode: 'orchestration' | 'reasoning',
  maxTextChars: number = DEFAULT_AGENT_TEXT_LIMIT,
): void {
  const parsed = agentRequestSchema.safeParse(request);
  if (!parsed.success) {
    throw boundedValidationError(parsed.error, {
      subject: `The request (X-Routing-Mode: ${mode})`,
    });
  }
  const chars = parsed.data.messages.reduce(
    (sum, message) => sum + messageText(message.content).length,
    0,
  );
  if (chars > maxTextChars) {
    throw new BadRequestError(
      `The messages carry ${chars} characters of text; a request with X-Routing-Mode: ${mode} may carry at most ${maxTextChars} (GATEWAY_AGENT_TEXT_LIMIT). Send fewer or shorter messages, or put long documents in POST /v1/documents and ask about them.`,
      { param: 'messages' },
    );
  }
}

/**
 * The files the last user message of a chat request brings: `image_url` parts (data URLs only)
 * and `file` parts (`file_data` or `file_id`), named `messages[i].content[j]…`. Files in earlier
 * messages are not sent (the history the agents get is text).
 *
 * @throws BadRequestError (400) naming the part: an http(s) URL, a malformed data URL, a file
 *   part without data or id.
 */
export function chatAttachments(request: ChatCompletionRequest): AttachmentRef[] {
  const lastUser = request.messages.map((message) => message.role).lastIndexOf('user');
  if (lastUser === -1) return [];
  return collectAttachments(
    request.messages[lastUser]?.['content'],
    `messages[${lastUser}].content`,
  );
}
