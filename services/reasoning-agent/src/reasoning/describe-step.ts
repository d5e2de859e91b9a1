import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';
import type { ReasoningStep } from './reasoning-step';

/** Longest text of one step line, in characters. */
const MAX_LINE_LENGTH = 600;

function clip(text: string, length = MAX_LINE_LENGTH): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

const argumentsSchema = z.record(z.string(), z.unknown());

/** A tool call's arguments as a reader sees them: `"(17 + 25) * 3"`, `timezone: "Asia/Tokyo"`. */
function describeArguments(text: string): string {
  const parsed = safeParseJson({ text, schema: argumentsSchema });
  if (!parsed.success) return clip(text.trim(), 200);
  const entries = Object.entries(parsed.value);
  if (entries.length === 1) return clip(JSON.stringify(entries[0]?.[1]), 200);
  return clip(entries.map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join(', '), 200);
}

/**
 * One step as the line a person reads: `Thinking: …`, `Calling calculate("6 * 7")`,
 * `Result: 42` or `Tool error: …`.
 *
 * @example
 * describeStep({ type: 'tool-result', iteration: 1, callId: 'c1', name: 'calculate', ok: true, output: '42' }); // 'Result: 42'
 */
export function describeStep(step: ReasoningStep): string {
  switch (step.type) {
    case 'thought':
      return `Thinking: ${clip(step.text.trim())}`;
    case 'tool-call':
      return `Calling ${step.name}(${describeArguments(step.arguments)})`;
    case 'tool-result':
      return step.ok ? `Result: ${clip(step.output)}` : `Tool error: ${clip(step.output)}`;
  }
}
