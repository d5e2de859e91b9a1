import { dataPart, textPart, type ApprovalRequest } from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import type { CatalogTool } from '../servers';
import { callName, type PendingToolCalls } from './tool-call';

const RISK_ORDER = ['low', 'medium', 'high'] as const;

function shorten(text: string, limit: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length > limit ? `${clean.slice(0, limit - 1)}…` : clean;
}

/**
 * The approval preview of calls: per call its server, its tool and its exact arguments as
 * pretty-printed JSON.
 */
export function callsPreview(pending: Pick<PendingToolCalls, 'calls'>): string {
  return pending.calls
    .map(
      (call) =>
        `Server: ${call.server}\nTool: ${call.tool}\nArguments:\n${JSON.stringify(call.arguments, null, 2)}`,
    )
    .join('\n\n');
}

/**
 * The TASK_STATE_AUTH_REQUIRED status that asks a person to approve `pending`: the preview as text,
 * `{ approval: { action: 'call-tool', summary, preview, risk, expiresAt } }` (risk: the highest of
 * the tools' `toolApproval` risks) and `{ pendingToolCalls }`, which the continuation reads back.
 *
 * @example
 * yield askApproval({ pending, tools });
 */
export function askApproval({
  pending,
  tools,
}: {
  pending: PendingToolCalls;
  /** The tools of `pending.calls`, in the same order. */
  tools: readonly CatalogTool[];
}): AgentEvent {
  const asking = tools.filter((entry) => entry.approval.required);
  const risk = tools.reduce<ApprovalRequest['risk']>(
    (highest, entry) =>
      RISK_ORDER.indexOf(entry.approval.risk) > RISK_ORDER.indexOf(highest)
        ? entry.approval.risk
        : highest,
    'low',
  );
  const names = pending.calls.map(callName).join(', ');
  const why = asking[0]?.approval.reason ?? '';
  const preview = callsPreview(pending);
  const approval: ApprovalRequest = {
    action: 'call-tool',
    summary: shorten(
      `Call ${names}${pending.task === '' ? '' : ` for: ${pending.task.replace(/[.\s]+$/, '')}`}. ${why}`,
      900,
    ),
    preview,
    risk,
    expiresAt: pending.expiresAt,
  };
  return {
    type: 'status',
    state: 'TASK_STATE_AUTH_REQUIRED',
    message: [
      textPart(
        `Approval needed to make ${pending.calls.length === 1 ? 'this call' : 'these calls'}:\n\n${preview}`,
      ),
      dataPart({ approval }),
      dataPart({ pendingToolCalls: pending }),
    ],
  };
}
