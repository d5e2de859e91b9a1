/**
 * What the gateway's API answers, as the console reads it (docs/architecture.md §3): plain types,
 * no imports, so the browser app and the gateway both compile against them. The gateway checks
 * that its own views still fit these (`services/gateway/src/console/wire-contract.ts`), so the two
 * cannot drift apart without a type error.
 */

export type SessionStatus =
  'running' | 'waiting_approval' | 'waiting_input' | 'completed' | 'failed' | 'canceled';

export type NodeState =
  | 'pending'
  | 'running'
  | 'waiting_approval'
  | 'waiting_input'
  | 'completed'
  | 'failed'
  | 'rejected'
  | 'skipped';

export interface SessionSummary {
  id: string;
  status: SessionStatus;
  createdAt: string;
  updatedAt: string;
  request: string;
  pendingApprovals: number;
  pendingInputs: number;
  /** Whether the composed answer waits for a person's review. */
  awaitingReview: boolean;
}

export interface PlanNode {
  id: string;
  agent: string;
  skill?: string | undefined;
  task: string;
  dependsOn: string[];
  /**
   * Set on a step added while the run went: `handoff` (step `from` handed work off) or `replan`
   * (planned again after step `from` failed).
   */
  origin?: { kind: 'handoff' | 'replan'; from: string } | undefined;
}

export interface ApprovalView {
  id: string;
  /** `node`: an agent's action; `plan`: the whole plan; `review`: the composed answer (`input` is a question's kind). */
  kind: 'node' | 'plan' | 'input' | 'review';
  status: string;
  nodeId: string | null;
  agent: string | null;
  action: string;
  summary: string;
  preview: string;
  risk: 'low' | 'medium' | 'high';
  riskDescription?: string;
  createdAt: string;
  expiresAt: string;
  decidedAt?: string;
  instructions?: string;
}

export interface InputView {
  id: string;
  status: string;
  nodeId: string | null;
  agent: string | null;
  question: string;
  createdAt: string;
  expiresAt: string;
  answeredAt?: string;
  answer?: string;
}

export interface Citation {
  title: string;
  url?: string | undefined;
  snippet?: string | undefined;
  agent?: string | undefined;
}

export interface SessionNodeView {
  agent: string;
  state: NodeState;
  attempts: number;
  startedAt?: string;
  endedAt?: string;
  summary?: string;
  error?: string;
  approvalId?: string;
  /** A review sent the step back: the round that did and its feedback. */
  revision?: { round: number; feedback: string };
}

/** One step's result as a review round shows it. */
export interface ReviewStep {
  id: string;
  agent: string;
  state: string;
  summary?: string | undefined;
  error?: string | undefined;
  /** True for a step added while the run went. */
  added?: boolean | undefined;
}

/** What a person decides about a composed answer. */
export type ReviewDecisionKind = 'approve' | 'revise' | 'replan' | 'recompose';

/** One round of a result review (`SessionView.reviews`). */
export interface ReviewView {
  id: string;
  round: number;
  /** `pending`, then `approved`, `denied` (sent back) or `expired`. */
  status: string;
  answer: string;
  steps: ReviewStep[];
  decision?: ReviewDecisionKind;
  targets?: string[];
  feedback?: string;
  rerun?: string[];
  kept?: string[];
  timedOut?: boolean;
  createdAt: string;
  expiresAt: string;
  decidedAt?: string;
}

/** Agents or skills a run prefers, requires or leaves out. */
export interface AgentSteering {
  prefer?: string[] | undefined;
  require?: string[] | undefined;
  exclude?: string[] | undefined;
}

export interface SessionView {
  id: string;
  status: SessionStatus;
  createdAt: string;
  updatedAt: string;
  request: string;
  planApproval: boolean;
  /** Whether a person reviews the composed answer before it is sent. */
  resultReview: boolean;
  steering?: AgentSteering;
  plan: { nodes: PlanNode[]; rationale: string; confidence: number } | null;
  nodes: Record<string, SessionNodeView>;
  approvals: ApprovalView[];
  inputs: InputView[];
  /** Every round of the answer's review, oldest first. */
  reviews: ReviewView[];
  result: { text: string; citations: Citation[]; composer: string; failedNodes: string[] } | null;
  error: string | null;
  /** The files the run keeps (its steps' and the request's attachments), oldest first. */
  files?: FileView[];
}

/**
 * A run file as a session lists it: a step's output (`source: 'step'`) or an attachment. Its
 * bytes are at `url` (`/v1/files/{id}/content`, with the API key); `size` in bytes, times ISO-8601.
 */
export interface FileView {
  id: string;
  name: string;
  mediaType: string;
  size: number;
  source: 'step' | 'attachment';
  nodeId?: string;
  agent?: string;
  createdAt: string;
  expiresAt: string;
  url: string;
}

export interface DocumentView {
  id: string;
  object: 'document';
  filename: string;
  docType: string;
  chunks: number;
  description: string;
  createdAt: string;
  truncated?: boolean;
  warnings?: string[];
  duplicate?: boolean;
  /** True when `GET /v1/documents/{id}/content` returns the original file. */
  original?: boolean;
}

/** One remembered value, where it was learnt from (`llm` or `rules`) and when. */
export interface MemoryEntry {
  value: string | string[];
  source: string;
  updatedAt: string;
}

export interface MemoryView {
  object: 'memory';
  user: string;
  /** Personal facts by name (`name`, `company`, `jobTitle`; `projects` is a list). */
  facts: Record<string, MemoryEntry | undefined>;
  /** Answer preferences by name (`tone`, `detailLevel`, `language`). */
  preferences: Record<string, MemoryEntry | undefined>;
  updatedAt: string | null;
}

/** One skill of an agent (`GET /v1/agents`). */
export interface SkillView {
  id: string;
  name: string;
  description: string;
  tags: string[];
  /** For an MCP tool: whether calling it asks a person first; absent: it does not say. */
  approval?: 'required' | 'none';
  /** Set when the skill is an MCP tool: its server and tool. */
  mcp?: { server: string; tool: string };
}

/** One agent the orchestrator can plan with, as the caller's tenant sees it (`GET /v1/agents`). */
export interface AgentView {
  object: 'agent';
  name: string;
  url: string;
  description: string;
  availability: {
    state: 'ready' | 'degraded' | 'unconfigured';
    reason?: string;
    unavailableSkills?: string[];
  };
  skills: SkillView[];
}

export interface ListOf<T> {
  object: 'list';
  data: T[];
}
