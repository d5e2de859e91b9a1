import { runFileContentPath, type ProgressEvent } from '@fleet/a2a';

/**
 * The line a person reads for a progress event (the gateway streams it as
 * `delta.reasoning_content`); the structured event travels beside it in a data part.
 *
 * @example
 * describeProgress({ type: 'node-end', nodeId: 'search', agent: 'web-agent', state: 'completed', durationMs: 1200 });
 * // 'Step search (web-agent) completed in 1.2 s.'
 */
export function describeProgress(event: ProgressEvent): string {
  switch (event.type) {
    case 'queue-start':
      return `Session ${event.sessionId}: queued (position ${event.position} among this tenant's waiting runs); the orchestrator runs at most ${event.maxActiveRuns} at once and serves each tenant in turn.`;
    case 'queue-end':
      return `Started after ${seconds(event.waitedMs)} in the queue.`;
    case 'run-start':
      return `Session ${event.sessionId}: working on the request.`;
    case 'plan-start':
      return event.agents.length === 0
        ? 'Planning, but no agent is available.'
        : `Planning with ${event.agents.length} agent${event.agents.length === 1 ? '' : 's'}: ${event.agents.join(', ')}.`;
    case 'plan-end': {
      const steps = event.plan.nodes.map((node) =>
        node.dependsOn.length === 0
          ? `${node.id} by ${node.agent}`
          : `${node.id} by ${node.agent}, after ${node.dependsOn.join(' and ')}`,
      );
      const count = `${event.plan.nodes.length} step${event.plan.nodes.length === 1 ? '' : 's'}`;
      const source = PLAN_SOURCES[event.source];
      return steps.length === 0
        ? `The plan (${source}) has no steps.`
        : `The plan (${source}) has ${count}: ${steps.join('; ')}.`;
    }
    case 'node-start':
      return event.attempt === 1
        ? `Step ${event.nodeId} (${event.agent}) started.`
        : `Step ${event.nodeId} (${event.agent}): attempt ${event.attempt}.`;
    case 'node-progress':
      return `Step ${event.nodeId} (${event.agent}): ${event.text}`;
    case 'node-end': {
      const step = `Step ${event.nodeId} (${event.agent})`;
      if (event.state === 'completed') return `${step} completed in ${seconds(event.durationMs)}.`;
      if (event.state === 'skipped')
        return `${step} skipped: ${trimEnd(event.error ?? 'it did not run')}.`;
      if (event.state === 'rejected')
        return `${step} was not done: ${trimEnd(event.error ?? 'its approval was denied')}.`;
      return `${step} failed: ${trimEnd(event.error ?? 'unknown error')}.`;
    }
    case 'approval-required': {
      const what =
        event.kind === 'plan' ? 'The plan' : `Step ${event.nodeId ?? '?'} (${event.agent ?? '?'})`;
      const risk =
        event.riskDescription === undefined
          ? `${event.risk} risk`
          : `${event.risk} risk: ${trimEnd(event.riskDescription)}`;
      return `${what} needs your approval (${risk}): ${trimEnd(event.summary)}. Approve or deny ${event.approvalId} before ${event.expiresAt}.`;
    }
    case 'input-required':
      if (event.nodeId === 'plan' && event.agent === 'orchestrator') {
        return `${event.question.trim()} Answer ${event.inputId} before ${event.expiresAt} (reply in the chat with X-Session-ID, or POST the answer to the session's inputs).`;
      }
      return `Step ${event.nodeId} (${event.agent}) asks: ${event.question.trim()} Answer ${event.inputId} before ${event.expiresAt} (reply in the chat with X-Session-ID, or POST the answer to the session's inputs).`;
    case 'input-end':
      return event.status === 'answered'
        ? `Question ${event.inputId} answered.`
        : `Question ${event.inputId}: ${event.status.replace('_', ' ')}.`;
    case 'approval-end':
      return `Approval ${event.approvalId}: ${event.status.replace('_', ' ')}${event.instructions ? ` with instructions (${event.mode ?? 'enhance'}): ${trimEnd(event.instructions)}` : ''}.`;
    case 'file-ready': {
      const { file } = event;
      const from =
        file.source === 'attachment'
          ? 'from the request'
          : `from step ${file.nodeId ?? '?'} (${file.agent ?? '?'})`;
      return `File ${file.name} (${file.mediaType}, ${formatSize(file.size)}) ${from}: ${runFileContentPath(file.id)}.`;
    }
    case 'file-refused':
      return `File ${event.name}${event.nodeId === undefined ? '' : ` from step ${event.nodeId}${event.agent === undefined ? '' : ` (${event.agent})`}`} was not kept: ${trimEnd(event.reason)}.`;
    case 'review-required':
      return `The answer (round ${event.round}) waits for your review: approve it, revise steps, re-plan or rewrite it with POST /v1/sessions/${event.sessionId ?? '{id}'}/review before ${event.expiresAt}; after that ${event.onTimeout === 'approve' ? 'it is sent as it stands' : 'the run ends without it'}.`;
    case 'review-end':
      return describeReviewEnd(event);
    case 'node-added': {
      const { node } = event;
      const origin =
        node.origin === undefined
          ? ''
          : node.origin.kind === 'handoff'
            ? `, handed off by step ${node.origin.from}`
            : `, re-planned after step ${node.origin.from} failed`;
      return `Step ${node.id} (${node.agent}) added to the plan${origin}: ${trimEnd(node.task)}.`;
    }
    case 'handoff-refused':
      return `Step ${event.nodeId} (${event.agent}) handed off to ${event.target}; not taken: ${trimEnd(event.reason)}.`;
    case 'compose-start':
      return 'Writing the answer.';
    case 'run-end':
      // A run whose steps failed for reasons of their tasks ends `failed` too, with an answer
      // after this line that says why: the line must not read as an error of its own.
      return event.state === 'completed'
        ? 'Done.'
        : event.state === 'canceled'
          ? 'The run was canceled.'
          : 'Ended without the work done.';
  }
}

/** A review decision, in words. */
function describeReviewEnd(event: Extract<ProgressEvent, { type: 'review-end' }>): string {
  const by = event.timedOut === true ? 'Nobody reviewed the answer in time: ' : 'Review: ';
  const feedback = event.feedback === undefined ? '' : ` (${trimEnd(event.feedback)})`;
  switch (event.decision) {
    case 'approve':
      return `${by}the answer is approved.`;
    case 'recompose':
      return `${by}the answer is written again${feedback}.`;
    case 'replan':
      return `${by}the request is planned again${feedback}.`;
    case 'revise': {
      const rerun = event.rerun ?? event.targets ?? [];
      const kept =
        event.kept === undefined || event.kept.length === 0
          ? ''
          : `; ${event.kept.join(', ')} keep${event.kept.length === 1 ? 's' : ''} ${event.kept.length === 1 ? 'its' : 'their'} result (an approved action is not redone)`;
      return `${by}step${rerun.length === 1 ? '' : 's'} ${rerun.join(', ')} run${rerun.length === 1 ? 's' : ''} again${feedback}${kept}.`;
    }
  }
}

/** Who made the plan, in words. */
const PLAN_SOURCES: Record<'llm' | 'heuristic' | 'request', string> = {
  llm: 'made by the model',
  heuristic: 'made by keyword matching',
  request: 'given with the request',
};

/** A byte count a person reads: `812 B`, `14.2 KiB`, `1.0 MiB`. */
function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function trimEnd(text: string): string {
  return text.replace(/[.\s]+$/, '');
}
