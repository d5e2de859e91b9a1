/** Dates and states in words. */

const STATE_WORDS: Record<string, string> = {
  running: 'running',
  waiting_approval: 'waiting for approval',
  waiting_input: 'waiting for an answer',
  completed: 'completed',
  failed: 'failed',
  canceled: 'canceled',
  pending: 'pending',
  rejected: 'rejected',
  skipped: 'skipped',
  approved: 'approved',
  denied: 'denied',
  answered: 'answered',
  timed_out: 'timed out',
  expired: 'expired',
  withdrawn: 'withdrawn by its agent',
};

export function stateWords(state: string): string {
  return STATE_WORDS[state] ?? state.replaceAll('_', ' ');
}

/** Why a step was added while the run went: "added: hand-off from find". */
export function originWords(origin: { kind: 'handoff' | 'replan'; from: string }): string {
  return origin.kind === 'handoff'
    ? `added: hand-off from ${origin.from}`
    : `added: re-plan after ${origin.from} failed`;
}

const DECISION_WORDS: Record<string, string> = {
  approve: 'approved',
  revise: 'steps revised',
  replan: 're-planned',
  recompose: 'answer rewritten',
};

/** A review decision in words: "steps revised". */
export function decisionWords(decision: string): string {
  return DECISION_WORDS[decision] ?? decision;
}

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function formatTime(iso: string | undefined): string {
  if (iso === undefined) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : timeFormat.format(date);
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "2 minutes ago", "in 1 minute". */
export function fromNow(iso: string | undefined, now = Date.now()): string {
  if (iso === undefined) return '';
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  if (Number.isNaN(seconds)) return iso;
  const abs = Math.abs(seconds);
  if (abs < 60) return relative.format(seconds, 'second');
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour');
  return relative.format(Math.round(seconds / 86_400), 'day');
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
