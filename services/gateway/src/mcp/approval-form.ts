import { z } from 'zod';
import type { AskApproval } from './ask-schemas';

/** Longest instructions a decision carries, as on the approvals route. */
export const MAX_INSTRUCTIONS = 4000;

/** The approval a run waits for, as its `approval-required` event reports it. */
export const approvalEventSchema = z.object({
  type: z.literal('approval-required'),
  approvalId: z.string(),
  kind: z.string(),
  action: z.string(),
  summary: z.string(),
  preview: z.string(),
  risk: z.string(),
  riskDescription: z.string().optional(),
  expiresAt: z.string(),
  sessionId: z.string().optional(),
});
export type ApprovalEvent = z.infer<typeof approvalEventSchema>;

/** What a person answers in the approval form. */
export const decisionFormSchema = z.object({
  decision: z.enum(['approve', 'deny']),
  instructions: z.string().max(MAX_INSTRUCTIONS).optional(),
});

/** The approval form's schema on the wire (elicitation's restricted JSON Schema). */
export const DECISION_FORM = {
  type: 'object',
  properties: {
    decision: {
      type: 'string',
      title: 'Decision',
      enum: ['approve', 'deny'],
      description: 'Approve the action, or deny it.',
    },
    instructions: {
      type: 'string',
      title: 'Instructions',
      maxLength: MAX_INSTRUCTIONS,
      description: 'Optional: how the agent should carry the action out, or why it is denied.',
    },
  },
  required: ['decision'],
} as const;

/** The readable text of an approval, for a form's message and a result's text. */
export function describeApproval(approval: ApprovalEvent): string {
  const risk =
    approval.riskDescription === undefined
      ? approval.risk
      : `${approval.risk} (${approval.riskDescription})`;
  return [
    `The fleet asks for your approval before it goes on.`,
    `Action: ${approval.action}`,
    `Summary: ${approval.summary}`,
    `Preview:\n${approval.preview}`,
    `Risk: ${risk}`,
  ].join('\n');
}

/** An approval as `ask` shows it, with how to decide it. */
export function approvalView(approval: ApprovalEvent, sessionId: string): AskApproval {
  return {
    id: approval.approvalId,
    kind: approval.kind,
    action: approval.action,
    summary: approval.summary,
    preview: approval.preview,
    risk: approval.risk,
    expiresAt: approval.expiresAt,
    decide: {
      method: 'POST',
      path: `/v1/sessions/${sessionId}/approvals/${approval.approvalId}`,
      console: consoleLink(sessionId),
    },
  };
}

/** The session's page in the web console. */
export function consoleLink(sessionId: string): string {
  return `/console/sessions/${encodeURIComponent(sessionId)}`;
}
