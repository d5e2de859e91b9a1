import {
  DEFAULT_MAX_HANDOFFS,
  readApprovalRequest,
  readQuestion,
  type NodeInput,
  type Part,
  type PlanNode,
  type StepFailure,
} from '@fleet/a2a';
import {
  Attributes,
  SpanKind,
  recordError,
  setSpanOutput,
  withSpan,
  type Span,
} from '@fleet/telemetry';
import { createAgentBreakers, type AgentBreakers } from './agent-breakers';
import type {
  DependencyOutputs,
  ExistingTask,
  NodeOutcome,
  NodeRun,
  StepFilePart,
} from './node-outcome';
import { decideHandoff, handoffTargetName } from './plan-growth';
import { callAgent, isAborted, sleep } from './call-agent';
import type {
  ApprovalVerdict,
  ExecutePlanOptions,
  ExecutionEvent,
  ExecutionResult,
  NodeApprovalRequest,
  ResumedNode,
} from './execute-plan-types';

export type {
  ApprovalVerdict,
  AwaitApproval,
  ExecutePlanOptions,
  ExecutionEvent,
  ExecutionResult,
  NodeApprovalRequest,
  ResumedNode,
  RetryOptions,
  Scheduling,
} from './execute-plan-types';

/** The error of a node a resumed run finds `running` with no recorded agent task. */
export const NOT_RESENT_MESSAGE =
  'the orchestrator stopped while this step was being sent, and it is not sent again so that it cannot run twice';

/** The message a node fails with when its agent stops to ask a person something the run cannot relay. */
export function interruptionMessage(reason: 'auth-required' | 'input-required'): string {
  return reason === 'auth-required'
    ? 'needs approval, but this run cannot ask for it'
    : 'asked a question, but this run cannot ask a person';
}

const FINISHED_STATES = new Set<NodeRun['state']>(['completed', 'failed', 'rejected', 'skipped']);

/**
 * Runs a plan as a DAG. Each node starts the moment all its dependencies have finished — there are
 * no stage barriers — so a run takes about as long as its critical path. A node gets its direct
 * dependencies' outputs; a failed dependency is handed on as `partial` with its error, and the
 * dependent still runs. Each attempt has a time-out; transient failures are retried with
 * exponential backoff and jitter; each agent has a circuit breaker, and an open circuit fails a
 * node at once. A node whose agent asks for approval waits for the decision (`awaitApproval`)
 * while every other branch goes on; it is then continued (same agent task) or ends `rejected`.
 * A resumed run (`resumeFrom`) starts from the recorded node states. The plan grows while it runs:
 * a completed node's hand-offs are weighed (`decideHandoff`) one at a time, and each one taken adds
 * a node that depends on it (`node-added`; refused: `handoff-refused`). Never rejects: every node
 * ends `completed`, `failed`, `rejected` or `skipped`.
 *
 * @example
 * const result = await executePlan({ plan, invokeAgent, sessionId, tenant, signal, onEvent });
 */
export async function executePlan(options: ExecutePlanOptions): Promise<ExecutionResult> {
  const { signal, onEvent = () => undefined, scheduling = 'dependency' } = options;
  const breakers = options.breakers ?? createAgentBreakers();
  // The plan's nodes: added to while the run goes.
  const nodes = [...options.plan.nodes];
  const plan = { ...options.plan, nodes };
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const runs = initialRuns(plan.nodes, options.resumeFrom ?? {});
  const levels = topologicalLevels(plan.nodes);
  const finished = new Set<string>();
  const launched = new Set<string>();
  for (const [id, run] of runs) {
    if (!FINISHED_STATES.has(run.state)) continue;
    finished.add(id);
    launched.add(id);
  }
  let inFlight = 0;
  let currentLevel = 0;

  const isReady = (node: PlanNode): boolean => {
    if (launched.has(node.id)) return false;
    if (!node.dependsOn.every((id) => finished.has(id) || !byId.has(id))) return false;
    return scheduling === 'dependency' || levels.get(node.id) === currentLevel;
  };

  return new Promise<ExecutionResult>((resolve) => {
    const settle = (): void => {
      const canceled = signal?.aborted === true;
      skipPending({ nodes: plan.nodes, runs, canceled, onEvent });
      resolve({
        plan: { ...plan, nodes: [...nodes] },
        nodes: plan.nodes.map((node) => ({ ...(runs.get(node.id) as NodeRun) })),
        canceled,
      });
    };

    // Hand-offs are weighed one node at a time, in the order the nodes ended.
    let growing = Promise.resolve();
    const grow = (node: PlanNode): Promise<void> => {
      growing = growing.then(() => takeHandoffs(node, { runs, byId, options, onEvent, addNode }));
      return growing;
    };
    const addNode = (node: PlanNode): void => {
      nodes.push(node);
      byId.set(node.id, node);
      runs.set(node.id, { id: node.id, agent: node.agent, state: 'pending', attempts: 0 });
      levels.set(node.id, 1 + Math.max(-1, ...node.dependsOn.map((id) => levels.get(id) ?? 0)));
    };

    const launchReady = (): void => {
      if (signal?.aborted !== true) {
        if (scheduling === 'stages' && inFlight === 0) {
          // The whole current level is done: move to the next level that still has work.
          while (
            plan.nodes.some((node) => !launched.has(node.id)) &&
            !plan.nodes.some(
              (node) => levels.get(node.id) === currentLevel && !launched.has(node.id),
            )
          ) {
            currentLevel += 1;
          }
        }
        for (const node of plan.nodes) {
          if (!isReady(node)) continue;
          launched.add(node.id);
          inFlight += 1;
          void runNode({ node, options, runs, breakers })
            .then(() => grow(node))
            .then(() => {
              inFlight -= 1;
              finished.add(node.id);
              launchReady();
            });
        }
      }
      if (inFlight === 0) settle();
    };

    launchReady();
  });
}

/** Each node's run at the start: pending, or as recorded for a resumed run. */
function initialRuns(
  nodes: readonly PlanNode[],
  resumeFrom: Readonly<Record<string, ResumedNode>>,
): Map<string, NodeRun> {
  return new Map<string, NodeRun>(
    nodes.map((node) => {
      const recorded = resumeFrom[node.id];
      const run: NodeRun =
        recorded === undefined || recorded.state === 'pending'
          ? { id: node.id, agent: node.agent, state: 'pending', attempts: recorded?.attempts ?? 0 }
          : { ...recorded, id: node.id, agent: node.agent };
      return [node.id, run];
    }),
  );
}

/**
 * Ends the nodes still pending when nothing more runs as `skipped` (only a cancel or a cycle
 * leaves nodes pending), each with its `node-end`.
 */
function skipPending({
  nodes,
  runs,
  canceled,
  onEvent,
}: {
  nodes: readonly PlanNode[];
  runs: ReadonlyMap<string, NodeRun>;
  canceled: boolean;
  onEvent: (event: ExecutionEvent) => void;
}): void {
  for (const node of nodes) {
    const run = runs.get(node.id);
    if (run === undefined || run.state !== 'pending') continue;
    // Only a cancel or a cycle (validatePlan rejects those first) leaves nodes pending.
    run.state = 'skipped';
    run.error = canceled ? 'the run was canceled' : 'its dependencies never finished';
    onEvent({
      type: 'node-end',
      nodeId: run.id,
      agent: run.agent,
      run: { ...run },
      durationMs: 0,
    });
  }
}

/**
 * Weighs a completed node's hand-offs one at a time: each one taken adds a node (`addNode`,
 * then `node-added`), each one refused or unreadable is a `handoff-refused`.
 */
async function takeHandoffs(
  from: PlanNode,
  {
    runs,
    byId,
    options,
    onEvent,
    addNode,
  }: {
    runs: ReadonlyMap<string, NodeRun>;
    byId: ReadonlyMap<string, PlanNode>;
    options: ExecutePlanOptions;
    onEvent: (event: ExecutionEvent) => void;
    addNode: (node: PlanNode) => void;
  },
): Promise<void> {
  const run = runs.get(from.id) as NodeRun;
  if (run.state !== 'completed' || options.signal?.aborted === true) return;
  const refuse = (target: string, reason: string): void =>
    onEvent({ type: 'handoff-refused', nodeId: from.id, agent: from.agent, target, reason });
  for (const reason of run.handoffsRefused ?? []) refuse('unreadable', reason);
  for (const request of run.handoffs ?? []) {
    let decision: Awaited<ReturnType<typeof decideHandoff>>;
    try {
      decision = await decideHandoff({
        from,
        request,
        byId,
        resolve: options.resolveHandoff,
        maxHandoffs: options.maxHandoffs ?? DEFAULT_MAX_HANDOFFS,
      });
    } catch (error) {
      decision = { refused: `it could not be weighed: ${errorMessage(error)}` };
    }
    if (isAborted(options.signal)) return;
    if ('refused' in decision) {
      refuse(handoffTargetName(request), decision.refused);
      continue;
    }
    addNode(decision.node);
    onEvent({ type: 'node-added', node: decision.node });
  }
}

/** Topological level of each node: 0 for nodes without dependencies, else 1 + the deepest parent. */
function topologicalLevels(nodes: readonly PlanNode[]): Map<string, number> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const levels = new Map<string, number>();
  const levelOf = (node: PlanNode, seen: Set<string>): number => {
    const known = levels.get(node.id);
    if (known !== undefined) return known;
    if (seen.has(node.id)) return 0; // a cycle; validatePlan rejects these before a run
    seen.add(node.id);
    let level = 0;
    for (const id of node.dependsOn) {
      const parent = byId.get(id);
      if (parent) level = Math.max(level, levelOf(parent, seen) + 1);
    }
    levels.set(node.id, level);
    return level;
  };
  for (const node of nodes) levelOf(node, new Set());
  return levels;
}

interface RunNodeOptions {
  node: PlanNode;
  options: ExecutePlanOptions;
  runs: Map<string, NodeRun>;
  breakers: AgentBreakers;
}

/** Runs one node to its end (all attempts) and records it in `runs`. Never rejects. */
async function runNode({ node, options, runs, breakers }: RunNodeOptions): Promise<void> {
  const { signal, onEvent = () => undefined } = options;
  const run = runs.get(node.id) as NodeRun;
  const input = buildNodeInput({ node, runs, options });
  const resumed =
    run.state === 'running' || run.state === 'waiting_approval' || run.state === 'waiting_input'
      ? run.state
      : undefined;
  const startedAt = resumed === undefined ? Date.now() : (run.startedAt ?? Date.now());
  if (resumed === undefined) run.state = 'running';
  run.startedAt = startedAt;

  await withSpan(
    {
      name: `orchestrator.node ${node.id}`,
      kind: SpanKind.AGENT,
      input: { task: node.task, dependencyOutputs: input.fleet.dependencyOutputs },
      attributes: {
        [Attributes.AGENT_NAME]: node.agent,
        [Attributes.GRAPH_NODE_ID]: node.id,
        [Attributes.GRAPH_NODE_NAME]: node.id,
        [Attributes.GRAPH_NODE_PARENT_ID]: node.dependsOn[0] ?? 'orchestrator',
      },
    },
    async (span) => {
      const settle: SettleOptions = { node, input, run, options, breakers, resumed, made: [] };
      await settleNode(settle);
      if (run.state === 'completed' && settle.made.length > 0) await keepMadeFiles(settle);
      describeNodeSpan(span, run);
    },
  ).catch(() => undefined); // settleNode never throws; a tracing failure must not end the run

  if (
    run.state === 'running' ||
    run.state === 'waiting_approval' ||
    run.state === 'waiting_input'
  ) {
    run.state = 'failed';
    run.error ??= signal?.aborted === true ? 'the run was canceled' : 'the node did not finish';
    run.failure ??= 'fleet';
  }
  run.endedAt = Date.now();
  onEvent({
    type: 'node-end',
    nodeId: node.id,
    agent: node.agent,
    run: { ...run },
    durationMs: run.endedAt - startedAt,
  });
}

/** The files a completed node made, kept by the run (`keepFiles`) and put on the node. */
async function keepMadeFiles({ node, run, options, made }: SettleOptions): Promise<void> {
  if (options.keepFiles === undefined) return;
  const kept = await options.keepFiles({ node, files: made, signal: options.signal });
  if (kept.length > 0) run.files = [...(run.files ?? []), ...kept];
}

function describeNodeSpan(span: Span, run: NodeRun): void {
  if (run.state === 'completed') setSpanOutput(span, run.summary ?? '');
  else
    recordError(
      span,
      new Error(
        `Step ${run.id} (${run.agent}) ${run.state === 'rejected' ? 'was not done' : 'failed'}: ${run.error ?? 'unknown'}`,
      ),
    );
  span.setAttribute('fleet.node.attempts', run.attempts);
  if (run.approvalId !== undefined) span.setAttribute('fleet.node.approval_id', run.approvalId);
}

function buildNodeInput({
  node,
  runs,
  options,
}: {
  node: PlanNode;
  runs: Map<string, NodeRun>;
  options: ExecutePlanOptions;
}): NodeInput {
  const dependencyOutputs: DependencyOutputs = {};
  for (const id of node.dependsOn) {
    const dependency = runs.get(id);
    if (dependency === undefined) continue;
    if (dependency.state === 'completed') {
      dependencyOutputs[id] = {
        agent: dependency.agent,
        summary: dependency.summary ?? '',
        ...(dependency.data === undefined ? {} : { data: dependency.data }),
      };
    } else {
      const reason = dependency.error ?? 'it did not run';
      const verb = dependency.state === 'rejected' ? 'was not done' : 'failed';
      dependencyOutputs[id] = {
        agent: dependency.agent,
        summary: `Step ${id} (${dependency.agent}) ${verb}: ${reason}`,
        partial: true,
        error: reason,
      };
    }
  }
  return {
    fleet: {
      sessionId: options.sessionId,
      nodeId: node.id,
      ...(node.skill === undefined ? {} : { skill: node.skill }),
      dependencyOutputs,
      entities: {},
      tenant: options.tenant,
      ...(options.toolPolicy === undefined ? {} : { toolPolicy: options.toolPolicy }),
      memory: [...(options.memory?.() ?? [])],
    },
  };
}

interface SettleOptions {
  node: PlanNode;
  input: NodeInput;
  run: NodeRun;
  options: ExecutePlanOptions;
  breakers: AgentBreakers;
  /** Set for a resumed run's node that was under way when the session stopped. */
  resumed: 'running' | 'waiting_approval' | 'waiting_input' | undefined;
  /** The file parts of the node's completed outcome, kept once the node is done. */
  made: StepFilePart[];
}

/** What a node's agent asks a person; for a resumed node waiting again, only the kind is known. */
type Asking = Omit<NodeApprovalRequest, 'node' | 'taskId' | 'task' | 'signal'>;

/**
 * Runs a node to its end: the first attempts (with retries), or — for a resumed node — its
 * recorded agent task; then, as long as the agent asks for approval, the decision and the
 * continuation of the same task. Once a task was continued or followed, a failure is final: the
 * agent may have acted, so the node is never sent again.
 */
async function settleNode(settle: SettleOptions): Promise<void> {
  let asking = await startNode(settle);
  while (asking !== undefined) {
    const outcome = await decideAndContinue(settle, asking);
    asking = outcome === undefined ? undefined : applyOutcome(settle, outcome);
  }
}

/**
 * The node's first outcome, applied: the first attempts, or a resumed node's recorded task
 * (followed, or waited on again). What the agent asks, or undefined when the node has ended.
 */
async function startNode(settle: SettleOptions): Promise<Asking | undefined> {
  const { node, input, run, options, breakers, resumed } = settle;
  if (resumed === undefined) {
    const files = await fetchStepFiles(settle);
    if (files === undefined) return undefined;
    const outcome = await attemptWithRetries({ node, input, run, options, breakers, files });
    return outcome === undefined ? undefined : applyOutcome(settle, outcome);
  }
  if (run.taskId === undefined) {
    fail(run, NOT_RESENT_MESSAGE, 'fleet');
    return undefined;
  }
  if (resumed === 'waiting_approval' || resumed === 'waiting_input') {
    // It waits again for its recorded request.
    return {
      kind: resumed === 'waiting_input' ? 'input' : 'approval',
      approval: undefined,
      question: undefined,
      asked: undefined,
    };
  }
  const outcome = await continueTask({
    node,
    input,
    options,
    existingTask:
      run.redeliver === undefined
        ? { taskId: run.taskId }
        : { taskId: run.taskId, ...run.redeliver, onlyIfStill: true },
  });
  delete run.redeliver;
  return applyOutcome(settle, outcome);
}

/**
 * The file parts of the documents the node names (none when it names none, or the run has no
 * {@link StepFiles}); undefined when the node failed because it cannot have them.
 */
async function fetchStepFiles({ node, run, options }: SettleOptions): Promise<Part[] | undefined> {
  if (node.files === undefined || node.files.length === 0 || options.stepFiles === undefined) {
    return [];
  }
  try {
    const result = await options.stepFiles({
      node,
      tenant: options.tenant,
      signal: options.signal,
    });
    if (result.status === 'ready') return result.parts;
    fail(run, result.error, result.failure);
  } catch (error) {
    fail(
      run,
      options.signal?.aborted === true
        ? 'the run was canceled'
        : `its files could not be fetched: ${errorMessage(error)}`,
      'fleet',
    );
  }
  return undefined;
}

/** Records an agent's outcome on the node: what the agent asks a person, or undefined when it ended. */
function applyOutcome(settle: SettleOptions, outcome: NodeOutcome): Asking | undefined {
  const { node, run, options } = settle;
  if (outcome.taskId !== undefined) run.taskId = outcome.taskId;
  switch (outcome.status) {
    case 'completed':
      run.state = 'completed';
      run.summary = outcome.summary;
      if (outcome.data !== undefined) run.data = outcome.data;
      if (outcome.tables !== undefined && outcome.tables.length > 0) run.tables = outcome.tables;
      settle.made = outcome.files ?? [];
      if (outcome.handoffs !== undefined && outcome.handoffs.length > 0) {
        run.handoffs = outcome.handoffs;
      }
      if (outcome.handoffsRefused !== undefined && outcome.handoffsRefused.length > 0) {
        run.handoffsRefused = outcome.handoffsRefused;
      }
      delete run.error;
      delete run.failure;
      return undefined;
    case 'failed':
      if (outcome.rejected === true) {
        run.state = 'rejected';
        run.error = outcome.error;
      } else {
        fail(run, outcome.error, outcome.failure ?? 'task');
      }
      return undefined;
    case 'interrupted': {
      if (options.awaitApproval === undefined || run.taskId === undefined) {
        run.interrupted = outcome.reason;
        fail(run, interruptionMessage(outcome.reason), 'fleet');
        return undefined;
      }
      // Liberal in what we accept: any request is approvable, any question is asked.
      const source = { parts: outcome.parts, agent: node.agent };
      const kind = outcome.reason === 'auth-required' ? 'approval' : 'input';
      return {
        kind,
        approval: kind === 'approval' ? readApprovalRequest(source) : undefined,
        question: kind === 'input' ? readQuestion(source) : undefined,
        asked: outcome.asked,
      };
    }
  }
}

/**
 * The agent waits for a person (or a resumed node waits again for its recorded request): waits
 * for the decision and continues the same task with it. The agent's next outcome, or undefined
 * when the node has ended (no way to ask, denied, unanswered, or the wait failed).
 */
async function decideAndContinue(
  { node, input, run, options }: SettleOptions,
  asking: Asking,
): Promise<NodeOutcome | undefined> {
  const { signal, awaitApproval } = options;
  const taskId = run.taskId as string;
  if (awaitApproval === undefined) {
    fail(
      run,
      interruptionMessage(asking.kind === 'input' ? 'input-required' : 'auth-required'),
      'fleet',
    );
    return undefined;
  }
  run.state = asking.kind === 'input' ? 'waiting_input' : 'waiting_approval';
  let verdict: ApprovalVerdict;
  try {
    verdict = await awaitApproval({
      node,
      taskId,
      task: run.effectiveTask ?? node.task,
      kind: asking.kind,
      approval: asking.approval,
      question: asking.question,
      asked: asking.asked,
      signal: signal ?? new AbortController().signal,
    });
  } catch (error) {
    fail(
      run,
      signal?.aborted === true
        ? 'the run was canceled'
        : `its ${asking.kind === 'input' ? 'question' : 'approval'} could not be handled: ${errorMessage(error)}`,
      'fleet',
    );
    return undefined;
  }
  run.approvalId = verdict.approvalId;
  if (verdict.effectiveTask !== undefined) run.effectiveTask = verdict.effectiveTask;
  if (verdict.result === 'unanswered' || verdict.result === 'withdrawn') {
    run.state = 'rejected';
    run.error = verdict.reason ?? 'its question was not answered';
    return undefined;
  }
  run.state = 'running';
  const outcome = await continueTask({
    node,
    input,
    options,
    existingTask: {
      taskId,
      continuation: verdict.deliver ? verdict.continuation : undefined,
      answered: verdict.answered,
    },
  });
  if (verdict.result === 'deny') {
    if (outcome.taskId !== undefined) run.taskId = outcome.taskId;
    run.state = 'rejected';
    run.error = verdict.reason ?? 'denied by a person';
    return undefined;
  }
  return outcome;
}

/** Ends the node failed, saying why and whose failure it is (see `StepFailure`). */
function fail(run: NodeRun, error: string, failure: StepFailure): void {
  run.state = 'failed';
  run.error = error;
  run.failure = failure;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The retry loop of a node's first send: attempts until the agent answers (completed, failed for
 * good, or asking a person), the attempts run out, or the run is canceled. Undefined when the
 * node has already ended (canceled, or failed after its last attempt).
 */
async function attemptWithRetries({
  node,
  input,
  run,
  options,
  breakers,
  files,
}: Omit<SettleOptions, 'resumed' | 'made'> & { files: readonly Part[] }): Promise<
  NodeOutcome | undefined
> {
  const { signal, onEvent = () => undefined, retry = {}, random = Math.random } = options;
  const { maxAttempts = 3, baseDelayMs = 500, maxDelayMs = 8000 } = retry;

  for (let attempt = run.attempts + 1; ; attempt += 1) {
    if (signal?.aborted === true) {
      fail(run, 'the run was canceled', 'fleet');
      return undefined;
    }
    run.attempts = attempt;
    onEvent({ type: 'node-start', nodeId: node.id, agent: node.agent, attempt });
    const outcome = await callAgent({
      node,
      input,
      attempt,
      options,
      breakers,
      files,
      onTask: (taskId) => {
        run.taskId = taskId;
        onEvent({ type: 'node-task', nodeId: node.id, agent: node.agent, attempt, taskId });
      },
    });
    if (outcome.status !== 'failed') return outcome;
    const canRetry = outcome.retryable === true && attempt < maxAttempts && !isAborted(signal);
    if (!canRetry) return outcome;
    if (outcome.taskId !== undefined) run.taskId = outcome.taskId;
    run.error = outcome.error;
    const exponential = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    const delayMs = Math.round(exponential * (1 - 0.25 * random()));
    onEvent({
      type: 'node-retry',
      nodeId: node.id,
      agent: node.agent,
      attempt,
      error: outcome.error,
      delayMs,
    });
    await sleep(delayMs, signal);
  }
}

/** Tries of a continuation that could not be sent because no replica of its agent was up. */
const UNSENT_CONTINUATION_ATTEMPTS = 5;

/**
 * Goes on with the node's existing agent task: sends the decision as its continuation, or only
 * follows it. Not counted by the circuit breaker, and retried only while the call never reached
 * the agent (no replica up, e.g. right after a restart while cards are re-read, with backoff):
 * once it was sent, the agent may have acted, so a failure is final.
 */
async function continueTask({
  node,
  input,
  options,
  existingTask,
}: {
  node: PlanNode;
  input: NodeInput;
  options: ExecutePlanOptions;
  existingTask: ExistingTask;
}): Promise<NodeOutcome> {
  const { signal, retry = {}, random = Math.random } = options;
  const { baseDelayMs = 500, maxDelayMs = 8000 } = retry;
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await callAgent({
      node,
      input,
      attempt,
      options,
      breakers: undefined,
      existingTask,
    });
    if (
      outcome.status !== 'failed' ||
      outcome.notSent !== true ||
      attempt >= UNSENT_CONTINUATION_ATTEMPTS ||
      isAborted(signal)
    ) {
      return outcome;
    }
    const exponential = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
    await sleep(Math.round(exponential * (1 - 0.25 * random())), signal);
  }
}
