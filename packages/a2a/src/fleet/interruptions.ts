import type { Part } from '../schemas/core';
import { partsText } from '../schemas/helpers';
import type { ApprovalDecision, ApprovalRequest, Risk } from './conventions';

/**
 * Reading what an agent asks a person — liberally, because the agent may be one we did not write —
 * and naming what the fleet sends back. The fleet's own agents send the strict convention
 * (`approvalRequestSchema`); these readers accept that and every looser shape seen in practice.
 */

/** Longest kept lengths of what an agent asks (the rest is cut with an ellipsis). */
export const INTERRUPTION_LIMITS = {
  action: 100,
  summary: 1000,
  riskDescription: 500,
  preview: 64 * 1024,
  question: 16 * 1024,
} as const;

/** What the agent's status message offers, for {@link readApprovalRequest} and {@link readQuestion}. */
export interface InterruptionSource {
  /** The status message's parts (text and data), if it sent one. */
  parts?: readonly Part[] | undefined;
  /** The agent's card name, for the defaults. */
  agent: string;
}

/**
 * The approval an agent asks for (TASK_STATE_AUTH_REQUIRED), from whatever it sent:
 *
 * - the fleet convention, a data part `{ approval: { action, summary, preview, risk, expiresAt } }`;
 * - the same fields at the top level of a data part;
 * - no data part at all: the status message's text is the summary and the preview;
 * - no status message: a summary saying the agent asks to continue.
 *
 * `risk` may be a level (`low` / `medium` / `high`, any case, also `critical`, `minor`, …), a
 * number (0–1 or 0–10), or words: words are kept as `riskDescription` and shown as given, and the
 * level is the one they name, else `medium`. A preview that is not a string is shown as JSON.
 * Missing fields are defaulted; nothing here rejects a request.
 *
 * @example
 * readApprovalRequest({ agent: 'payments', parts: [textPart('Pay invoice 42 (€1,200)?')] });
 * // { action: 'continue', summary: 'Pay invoice 42 (€1,200)?', preview: 'Pay invoice 42 (€1,200)?', risk: 'medium' }
 */
export function readApprovalRequest({ parts = [], agent }: InterruptionSource): ApprovalRequest {
  const text = partsText(parts).trim();
  const fields = approvalFields(parts);
  const summary =
    stringOf(fields?.['summary']) ??
    stringOf(fields?.['title']) ??
    stringOf(fields?.['description']) ??
    firstLine(text) ??
    `${agent} asks for approval to continue.`;
  const preview =
    previewOf(fields?.['preview']) ?? previewOf(fields?.['details']) ?? (text || summary);
  const { risk, riskDescription } = riskOf(fields?.['risk']);
  const expiresAt = timeOf(fields?.['expiresAt'] ?? fields?.['expires_at']);
  return {
    action: cut(stringOf(fields?.['action']) ?? 'continue', INTERRUPTION_LIMITS.action),
    summary: cut(summary, INTERRUPTION_LIMITS.summary),
    preview: cut(preview, INTERRUPTION_LIMITS.preview),
    risk,
    ...(riskDescription === undefined
      ? {}
      : { riskDescription: cut(riskDescription, INTERRUPTION_LIMITS.riskDescription) }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  };
}

/**
 * The question an agent asks (TASK_STATE_INPUT_REQUIRED): the status message's text, else a
 * `question` / `prompt` / `text` field of a data part (also inside `{ input: … }`), else a
 * generic line naming the agent.
 */
export function readQuestion({ parts = [], agent }: InterruptionSource): string {
  const text = partsText(parts).trim();
  if (text !== '') return cut(text, INTERRUPTION_LIMITS.question);
  for (const part of parts) {
    const data = recordOf(part.data);
    if (data === undefined) continue;
    const nested = recordOf(data['input']) ?? recordOf(data['inputRequest']);
    for (const source of [nested, data]) {
      const found =
        stringOf(source?.['question']) ??
        stringOf(source?.['prompt']) ??
        stringOf(source?.['text']);
      if (found !== undefined) return cut(found, INTERRUPTION_LIMITS.question);
    }
  }
  return `${agent} needs more information to continue.`;
}

/**
 * The `messageId` of the continuation that carries the decision on approval `approvalId`: the same
 * for every send of that decision, so an agent that sees it twice (after an orchestrator crash)
 * knows it is the same message and acts once.
 */
export function decisionMessageId(approvalId: string): string {
  return `fleet-decision-${approvalId}`;
}

/** The `messageId` of the continuation that carries the answer to question `inputId`. */
export function answerMessageId(inputId: string): string {
  return `fleet-answer-${inputId}`;
}

/**
 * The parts of an approval decision's continuation: a data part `{ approvalDecision }` (the
 * convention) and a text part saying the same in words, for agents that read only text.
 */
export function decisionParts(decision: ApprovalDecision): Part[] {
  const words =
    decision.decision === 'approve'
      ? `Approved.${decision.instructions === undefined ? '' : ` Instructions: ${decision.instructions}`}`
      : `Denied.${decision.instructions === undefined ? '' : ` ${decision.instructions}`}`;
  return [{ text: words }, { data: { approvalDecision: decision }, mediaType: 'application/json' }];
}

// ---- internals ---------------------------------------------------------------------------------

const LEVELS: Readonly<Record<string, Risk>> = {
  low: 'low',
  minor: 'low',
  minimal: 'low',
  none: 'low',
  medium: 'medium',
  moderate: 'medium',
  normal: 'medium',
  high: 'high',
  critical: 'high',
  severe: 'high',
  major: 'high',
  dangerous: 'high',
};

function approvalFields(parts: readonly Part[]): Record<string, unknown> | undefined {
  const records = parts.map((part) => recordOf(part.data)).filter((data) => data !== undefined);
  for (const data of records) {
    const nested = recordOf(data['approval']);
    if (nested !== undefined) return nested;
  }
  return records.find(
    (data) => 'summary' in data || 'action' in data || 'preview' in data || 'risk' in data,
  );
}

function riskOf(value: unknown): { risk: Risk; riskDescription?: string } {
  if (typeof value === 'number' && Number.isFinite(value)) {
    const scaled = value > 1 ? value / 10 : value;
    return { risk: scaled < 0.34 ? 'low' : scaled < 0.67 ? 'medium' : 'high' };
  }
  const words = stringOf(value);
  if (words === undefined) {
    const nested = recordOf(value);
    if (nested !== undefined) {
      const level = riskOf(nested['level']);
      const description = stringOf(nested['description']) ?? stringOf(nested['reason']);
      return description === undefined ? level : { risk: level.risk, riskDescription: description };
    }
    return { risk: 'medium' };
  }
  const exact = LEVELS[words.trim().toLowerCase()];
  if (exact !== undefined) return { risk: exact };
  const named = words
    .toLowerCase()
    .split(/[^a-z]+/u)
    .map((word) => LEVELS[word])
    .find((level) => level !== undefined);
  return { risk: named ?? 'medium', riskDescription: words.trim() };
}

function previewOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  try {
    return JSON.stringify(value, undefined, 2);
  } catch {
    return undefined;
  }
}

function timeOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) {
    // Seconds or milliseconds since the epoch.
    const ms = value < 1e12 ? value * 1000 : value;
    const date = new Date(ms);
    return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
  }
  const text = stringOf(value);
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function firstLine(text: string): string | undefined {
  const line = text.split('\n').find((entry) => entry.trim() !== '');
  return line?.trim();
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
