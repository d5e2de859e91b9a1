import { isDeepStrictEqual } from 'node:util';
import {
  dataPart,
  isFleetFailure,
  MAX_NODE_FILES,
  runState,
  textPart,
  type OrchestrateRequest,
  type Plan,
  type ProgressEvent,
  type RunResult,
} from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import { FleetError, NotFoundError } from '@fleet/errors';
import { createUsageMeter } from '@fleet/llm';
import { DEFAULT_USER_ID } from '@fleet/memory';
import type { Session } from '@fleet/sessions';
import type { AvailableAgent } from '../discovery';
import { previewPlan } from '../approvals';
import { composeAnswer, composeOffline, type ComposeStep } from '../composing';
import {
  createRunFileKeeper,
  executePlan,
  isRunHandover,
  withAttachments,
  type ExecutionEvent,
  type ExecutionResult,
  type NodeRun,
  type ResumedNode,
  type RunFileKeeper,
  type StepFilePart,
} from '../execution';
import { composerProfile, startRunMemory, type RunMemory } from '../memory';
import { planRun, type AskPlanner, type PlanRunOptions } from '../planning';
import { createAnswerPublisher, type AnswerPublisher } from './answer-publisher';
import type { EventQueue } from './event-queue';
import { createAwaitApproval } from './node-approvals';
import type { OrchestratorAgentOptions } from './orchestrator-agent-options';
import { approvePlan, pendingNodes, planAgain, type PlanSource } from './plan-approval';
import { confirmPlanConfidence, DEFAULT_PLAN_CONFIDENCE } from './plan-confidence';
import {
  reviewAnswer,
  reviewedPlan,
  silentAnswerPublisher,
  type ComposedRun,
} from './result-review';
import type { RunContext, RunLogger } from './run-context';
import { recordAddedNodes } from './record-added-nodes';
import { replanAfterFailure } from './replan-after-failure';
import { createHandoffResolver } from './resolve-handoff';
import { describeResume, resumedNodes, toNodeReport } from './run-result';
import { excludedNeeded, missingRequired, plannerSteering, requiredNote } from './run-steering';
import type { SessionWriter } from './session-writer';
import {
  createProgressThrottle,
  DEFAULT_PROGRESS_INTERVAL_MS,
  type ProgressThrottle,
} from './progress-throttle';

/** Longest node summary carried in a progress event (the full text is in the session and result). */
const MAX_PROGRESS_SUMMARY = 1000;

/** What {@link orchestrateRun} works with. */
export interface OrchestrateRunOptions {
  run: RunContext;
  options: OrchestratorAgentOptions;
  /** The session as it stood when the run began. */
  session: Session;
  input: OrchestrateRequest;
  resumed: boolean;
  /** The orchestrator's A2A task running the session. */
  taskId: string;
  queue: EventQueue<AgentEvent>;
  /** True when the run stopped because the session was canceled elsewhere. */
  canceledElsewhere: () => boolean;
  /**
   * Whose long-term memory the run uses (`fleet.user`); undefined: the tenant's default user for
   * a new run, no memory for a resumed one (its user is not recorded).
   */
  memoryUser?: string | undefined;
  /** The file parts the request brought (attachments): kept as the run's files when it starts. */
  attachments?: readonly StepFilePart[] | undefined;
  /** The run's files, once it has started (set by {@link orchestrateRun}): its result lists them. */
  keeper?: RunFileKeeper | undefined;
}

/** What the next stage of a run works with, or how the run ended (its answer, if any). */
type Stage<T> = { next: T } | { ended: string | undefined };

/** The plan a run goes on with, and where it came from. */
interface ChosenPlan {
  plan: Plan;
  source: PlanSource;
}

/**
 * One run of a session, start (or resume) to end: plan unless a plan is recorded, plan approval
 * when the session requires it, the DAG from the recorded node states, the answer. Returns the
 * answer text, or undefined when the run did not complete.
 */
export async function orchestrateRun(options: OrchestrateRunOptions): Promise<string | undefined> {
  const { run, session, resumed, queue } = options;
  const { writer, progress, signal, sessionId } = run;

  // A new run's session was created with its task; a resumed one records the task that runs it.
  if (session.taskId !== options.taskId) {
    writer.record((draft) => {
      draft.taskId = options.taskId;
    });
  }
  // A resume that brought the tenant's current tool policy keeps it for the next resume.
  const toolPolicy = options.input.toolPolicy;
  if (toolPolicy !== undefined && !isDeepStrictEqual(toolPolicy, session.toolPolicy)) {
    writer.record((draft) => {
      draft.toolPolicy = toolPolicy;
    });
  }
  // Likewise its agent steering.
  const steering = options.input.steering;
  if (steering !== undefined && !isDeepStrictEqual(steering, session.steering)) {
    writer.record((draft) => {
      draft.steering = steering;
    });
  }
  // Canceled or handed over while it waited for its slot: it ends without starting.
  if (signal.aborted) return endAborted(options);
  progress({ type: 'run-start', sessionId });
  if (resumed) {
    queue.push({
      type: 'status',
      state: 'TASK_STATE_WORKING',
      message: describeResume(session),
      metadata: { sessionId, resumed: true },
    });
  }

  // The run's files: the request's attachments are kept first, so the planner knows of them.
  const files = startRunFiles(options);
  if (!resumed && options.attachments !== undefined && options.attachments.length > 0) {
    await files.keepAttachments(options.attachments, signal);
  }
  // From here on every end of the run lists its files.
  options = { ...options, keeper: files };
  // Long-term memory: read and extracted beside planning, so it adds no latency.
  const memory = startMemory(options);
  const fresh = session.plan === undefined;
  const planned = await choosePlan(options, memory, files);
  if ('ended' in planned) return planned.ended;
  const attached = attachedFiles(files);
  const confident = await confirmConfidence(options, { ...planned.next, fresh, attached });
  if ('ended' in confident) return confident.ended;
  const approved = await approvePlanIfRequired(
    options,
    { ...confident.next, attached },
    confident.approve,
  );
  if ('ended' in approved) return approved.ended;
  const { plan } = approved.next;
  // The answer streams as the `result` artifact in chunks: a single step's own answer while it is
  // written (docs/architecture.md §5, "Compose"), else the composer's.
  // An answer a person reviews first is not streamed: it is not final.
  const answer =
    session.resultReview === true ? silentAnswerPublisher() : createAnswerPublisher(queue);
  // A step a review sent back runs with the reviewer's feedback (a resumed run's too).
  const reviewed = session.resultReview === true ? await reviewedPlan(run, plan) : plan;
  const executed = await executeChosenPlan(options, { plan: reviewed, memory, answer, files });
  if (executed.canceled || signal.aborted) return endAborted(options);
  // A step that failed may be planned again once, for another agent (`replanAfterFailure`).
  const execution = await replanAfterFailure(options, {
    execution: executed,
    askPlanner: meteredPlanner(options.options.askPlanner, run),
    execute: (grown, resumeFrom) =>
      executeChosenPlan(options, { plan: grown, memory, answer, files, resumeFrom }),
  });
  if (execution.canceled || signal.aborted) return endAborted(options);
  // The plan as it ended: with the steps that hand-offs and a re-plan added (and the tasks as
  // planned, not as a review's feedback extended them for their second run).
  const ended = withTasksOf(execution.plan, plan);
  return composeAndEnd(options, { plan: ended, execution, memory, answer, files });
}

/** `grown`, each of its nodes that `planned` has with the task `planned` gives it. */
function withTasksOf(grown: Plan, planned: Plan): Plan {
  const tasks = new Map(planned.nodes.map((node) => [node.id, node.task]));
  return {
    ...grown,
    nodes: grown.nodes.map((node) => ({ ...node, task: tasks.get(node.id) ?? node.task })),
  };
}

/**
 * The run's files (`createRunFileKeeper`): what it kept before (a resumed run's, from its
 * session) counts against its limits; each file kept is recorded in the session and announced
 * (`file-ready`), each refused one announced (`file-refused`).
 */
function startRunFiles({ run, session, options }: OrchestrateRunOptions): RunFileKeeper {
  const runFiles = options.runFiles;
  return createRunFileKeeper({
    store: runFiles?.store,
    tenant: session.tenant,
    sessionId: run.sessionId,
    limits: runFiles?.limits,
    kept: session.files ?? [],
    onReady: (file) => {
      run.writer.record((draft) => {
        // A change may be applied twice (to a stale copy first): the file is listed once.
        draft.files = [...(draft.files ?? []).filter((entry) => entry.id !== file.id), file];
      });
      run.progress({ type: 'file-ready', file });
    },
    onRefused: (refusal) => run.progress({ type: 'file-refused', ...refusal }),
  });
}

/** The attachments as the planner is told of them (name, type, size). */
function attachedFiles(files: RunFileKeeper): PlanRunOptions['files'] {
  const attached = files.files().filter((file) => file.source === 'attachment');
  return attached.length === 0
    ? undefined
    : attached
        .slice(0, MAX_NODE_FILES)
        .map((file) => ({ name: file.name, mediaType: file.mediaType, size: file.size }));
}

/** The recorded plan, or the planner's (recorded once chosen); a failed planning ends the run. */
async function choosePlan(
  options: OrchestrateRunOptions,
  memory: RunMemory | undefined,
  files: RunFileKeeper,
): Promise<Stage<ChosenPlan>> {
  const { run, session, input, resumed } = options;
  const { writer, progress, signal, logger, log } = run;
  const agentOptions = options.options;
  let plan = session.plan;
  let source: PlanSource = session.planSource ?? 'request';
  if (plan === undefined) {
    const agents = await agentOptions.availableAgents();
    const summaries = agents.map((agent) => agent.summary);
    progress({ type: 'plan-start', agents: agents.map((agent) => agent.name) });
    const explicitPlan = resumed ? undefined : input.plan;
    const plan1 = (steeringNote?: string) =>
      planRun({
        askPlanner: meteredPlanner(agentOptions.askPlanner, run),
        request: session.request,
        history: session.history,
        agents: summaries,
        explicitPlan,
        files: attachedFiles(files),
        steering: plannerSteering(input.steering),
        steeringNote,
        signal,
        onPlannerCall: (call) => logger.debug({ ...log, ...call }, 'asking the planner'),
      });
    try {
      let planned = await plan1();
      // A plan without a required agent or skill is asked for once more, with the instruction;
      // still without it, it runs as it is and the rationale (and a status message) says so.
      const missing =
        planned.source === 'request'
          ? []
          : missingRequired(planned.plan, input.steering, summaries);
      if (missing.length > 0) {
        const again = await plan1(requiredNote(missing));
        if (again.plan.nodes.length > 0) planned = again;
        const still = missingRequired(planned.plan, input.steering, summaries);
        if (still.length > 0) {
          const note = `The plan does not use ${still.map((name) => `"${name}"`).join(', ')}, which the request required: no step of the request fits it.`;
          planned = {
            ...planned,
            plan: { ...planned.plan, rationale: `${planned.plan.rationale} ${note}`.trim() },
          };
          options.queue.push({
            type: 'status',
            state: 'TASK_STATE_WORKING',
            message: note,
            metadata: { sessionId: run.sessionId },
          });
        }
      }
      plan = planned.plan;
      source = planned.source;
      // Nothing to plan with what is left: a request only an excluded agent could do is answered
      // with which one, instead of running.
      if (plan.nodes.length === 0 && agentOptions.agentsBeforeSteering !== undefined) {
        // A probe that fails leaves the empty plan to be answered as it is.
        const needed = await excludedAgentsNeeded(options, agentOptions.agentsBeforeSteering).catch(
          (): string[] => [],
        );
        if (needed.length > 0) return { ended: await endExcluded(options, { plan, needed }) };
      }
    } catch (error) {
      if (signal.aborted) return { ended: await endAborted(options) };
      return {
        ended: await endFailed(
          options,
          FleetError.isInstance(error) ? error.message : 'Planning failed.',
        ),
      };
    }
    const chosen = plan;
    const chosenSource = source;
    // The stored memory (a GET sent before planning) is read by now unless the plan came with
    // the request: then the plan is recorded with the first steps' start, in one session write,
    // instead of one write each (the steps wait for the memory anyway).
    await memory?.loaded;
    writer.record((draft) => {
      draft.plan = chosen;
      draft.planSource = chosenSource;
      draft.nodes = pendingNodes(chosen);
    });
  }
  progress({ type: 'plan-end', plan, source });
  return { next: { plan, source } };
}

/**
 * The plan-confidence step (`confirmPlanConfidence`): an uncertain plan is run, put up for approval
 * (`approve`) or asked about; nothing running when nobody answered ends the run like a plan not
 * approved.
 */
async function confirmConfidence(
  options: OrchestrateRunOptions,
  {
    fresh,
    attached,
    ...chosen
  }: ChosenPlan & { fresh: boolean; attached: PlanRunOptions['files'] },
): Promise<{ ended: string | undefined } | { next: ChosenPlan; approve: boolean }> {
  const { run, session, input, queue } = options;
  const confirm = () =>
    confirmPlanConfidence(run, {
      ...chosen,
      fresh,
      settings: options.options.planConfidence ?? DEFAULT_PLAN_CONFIDENCE,
      requested: input.lowConfidence,
      request: session.request,
      history: session.history,
      askPlanner: meteredPlanner(options.options.askPlanner, run),
      availableAgents: options.options.availableAgents,
      files: attached,
      say: (message) =>
        queue.push({
          type: 'status',
          state: 'TASK_STATE_WORKING',
          message,
          metadata: { sessionId: run.sessionId },
        }),
    });
  let outcome: Awaited<ReturnType<typeof confirmPlanConfidence>>;
  try {
    // A question to the person frees the run's slot while it waits, as plan approval does.
    outcome = run.slot === undefined ? await confirm() : await run.slot.whileWaiting(confirm);
  } catch (error) {
    if (run.signal.aborted) return { ended: await endAborted(options) };
    return {
      ended: await endFailed(
        options,
        `Planning failed: ${FleetError.isInstance(error) ? error.message : 'internal error'}`,
      ),
    };
  }
  if (outcome.next === 'not-run') return { ended: await endNotApproved(options, outcome) };
  return {
    next: { plan: outcome.plan, source: outcome.source },
    approve: outcome.next === 'approve',
  };
}

/** Plan approval, when the session requires it: the plan a person approved, or the run's end. */
async function approvePlanIfRequired(
  options: OrchestrateRunOptions,
  { attached, ...chosen }: ChosenPlan & { attached: PlanRunOptions['files'] },
  required = false,
): Promise<Stage<ChosenPlan>> {
  const { run, session } = options;
  if (!session.planApproval && !required) return { next: chosen };
  let outcome: Awaited<ReturnType<typeof approvePlan>>;
  const approve = () =>
    approvePlan(run, {
      ...chosen,
      request: session.request,
      history: session.history,
      askPlanner: meteredPlanner(options.options.askPlanner, run),
      availableAgents: options.options.availableAgents,
      files: attached,
    });
  try {
    // Nothing else of the run goes on while a person looks at the plan: its slot is free meanwhile.
    outcome = run.slot === undefined ? await approve() : await run.slot.whileWaiting(approve);
  } catch (error) {
    if (run.signal.aborted) return { ended: await endAborted(options) };
    return {
      ended: await endFailed(
        options,
        `Plan approval failed: ${FleetError.isInstance(error) ? error.message : 'internal error'}`,
      ),
    };
  }
  if (!outcome.approved) return { ended: await endNotApproved(options, outcome) };
  return { next: { plan: outcome.plan, source: outcome.source } };
}

/** Executes the plan, from the recorded node states when there are any. */
async function executeChosenPlan(
  options: OrchestrateRunOptions,
  {
    plan,
    memory,
    answer,
    files,
    resumeFrom: given,
  }: {
    plan: Plan;
    memory: RunMemory | undefined;
    answer: AnswerPublisher;
    files: RunFileKeeper;
    /** The nodes' states to go on from (a re-plan's); else read from the session when resumed. */
    resumeFrom?: Readonly<Record<string, ResumedNode>> | undefined;
  },
): Promise<ExecutionResult> {
  const { run, session, resumed } = options;
  const { writer, progress, signal, logger, log, sessionId } = run;
  const agentOptions = options.options;
  let resumeFrom = given;
  if (resumeFrom === undefined && (resumed || session.planApproval)) {
    await writer.written();
    const current = await run.sessions.get(sessionId);
    if (current === undefined) throw new NotFoundError(`Session ${sessionId} has expired.`);
    resumeFrom = resumedNodes(plan, current);
  }
  // A Redis GET started before planning: done by now. The extraction is not waited for.
  await memory?.loaded;
  // What the steps' agents say they are doing: live lines only (never recorded), rate-limited.
  const intervalMs = agentOptions.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
  const throttle =
    intervalMs <= 0
      ? undefined
      : createProgressThrottle({
          intervalMs,
          maxPerStep: agentOptions.progressMaxPerStep,
          emit: (line) => {
            if (!isRunHandover(signal.reason)) progress({ type: 'node-progress', ...line });
          },
        });
  // executePlan never rejects.
  const execution = await executePlan({
    plan,
    invokeAgent: agentOptions.invokeAgent,
    sessionId,
    tenant: session.tenant,
    toolPolicy: options.input.toolPolicy,
    signal,
    scheduling: agentOptions.scheduling,
    timeoutMs: agentOptions.nodeTimeoutMs,
    retry: agentOptions.retry,
    breakers: agentOptions.breakers,
    awaitApproval: createAwaitApproval(run),
    resumeFrom,
    memory: memory === undefined ? undefined : () => memory.lines(),
    // A file a step names is looked for among the request's attachments first, then the documents.
    stepFiles: files.files().some((file) => file.source === 'attachment')
      ? withAttachments({
          store: agentOptions.runFiles?.store,
          attachments: () => files.files(),
          documents: agentOptions.stepFiles,
        })
      : agentOptions.stepFiles,
    keepFiles: files.keepStepFiles,
    // A step's hand-offs go to the agents the planner could choose from.
    resolveHandoff: createHandoffResolver({
      agents: agentOptions.availableAgents,
      agentsBeforeSteering: agentOptions.agentsBeforeSteering,
    }),
    maxHandoffs: agentOptions.maxHandoffs,
    onEvent: (event) =>
      onExecutionEvent({ event, writer, progress, logger, log, signal, throttle }),
    onNodeUsage: ({ nodeId, agent, usage }) => run.usage.report({ step: nodeId, agent, usage }),
    onNodeText: answeringStep(plan) === undefined ? undefined : ({ text }) => answer.push(text),
    onNodeProgress: throttle === undefined ? undefined : (line) => throttle.push(line),
  });
  throttle?.close();
  return execution;
}

/**
 * Composes the answer from the executed steps and ends the run with it; a run whose answer a
 * person reviews first (`session.resultReview`) goes through {@link reviewAnswer} instead.
 */
async function composeAndEnd(
  options: OrchestrateRunOptions,
  parts: {
    plan: Plan;
    execution: ExecutionResult;
    memory: RunMemory | undefined;
    answer: AnswerPublisher;
    files: RunFileKeeper;
  },
): Promise<string | undefined> {
  if (options.session.resultReview === true) return reviewAndEnd(options, parts);
  const composed = await composeRun(options, parts);
  if (composed === undefined) return endAborted(options);
  return endCompleted(options, { ...composed, published: parts.answer });
}

/**
 * The result review's loop ({@link reviewAnswer}) with what it needs of the run: composing,
 * executing again from the recorded node states, re-planning, and the run's ends.
 */
function reviewAndEnd(
  options: OrchestrateRunOptions,
  {
    plan,
    execution,
    memory,
    answer,
    files,
  }: {
    plan: Plan;
    execution: ExecutionResult;
    memory: RunMemory | undefined;
    answer: AnswerPublisher;
    files: RunFileKeeper;
  },
): Promise<string | undefined> {
  const { run, session, queue } = options;
  return reviewAnswer({
    run,
    settings: options.options.review,
    plan,
    execution,
    say: (message) =>
      queue.push({
        type: 'status',
        state: 'TASK_STATE_WORKING',
        message,
        metadata: { sessionId: run.sessionId },
      }),
    compose: (round) => composeRun(options, { ...round, memory, answer, files }),
    stored: (round) => storedRun(options, { ...round, files }),
    // Every node keeps the state recorded in the session: only the reset ones run.
    execute: (next) =>
      executeChosenPlan({ ...options, resumed: true }, { plan: next, memory, answer, files }),
    replan: ({ plan: previous, feedback }) =>
      planAgain(run, {
        request: session.request,
        history: session.history,
        askPlanner: meteredPlanner(options.options.askPlanner, run),
        availableAgents: options.options.availableAgents,
        files: attachedFiles(files),
        plan: previous,
        feedback,
      }),
    endCompleted: (composed) => endCompleted(options, composed),
    endFailed: (message) => endFailed(options, message),
    endAborted: () => endAborted(options),
  });
}

/** The executed steps as the composer sees them, in plan order. */
function composeSteps(plan: Plan, execution: ExecutionResult): ComposeStep[] {
  return plan.nodes.map((node) => {
    const nodeRun = execution.nodes.find((entry) => entry.id === node.id);
    return {
      id: node.id,
      agent: node.agent,
      task: node.task,
      effectiveTask: nodeRun?.effectiveTask,
      state: nodeRun?.state ?? 'skipped',
      summary: nodeRun?.summary,
      data: nodeRun?.data,
      tables: nodeRun?.tables,
      files: nodeRun?.files,
      error: nodeRun?.error,
      failure: nodeRun?.state === 'failed' ? nodeRun.failure : undefined,
    };
  });
}

/** The run result of an answer, beside its text. */
function runResultOf(
  options: OrchestrateRunOptions,
  {
    plan,
    execution,
    files,
    citations,
    composer,
  }: {
    plan: Plan;
    execution: ExecutionResult;
    files: RunFileKeeper;
    citations: RunResult['citations'];
    composer: RunResult['composer'];
  },
): RunResult {
  const failedNodes = execution.nodes
    .filter((node) => node.state !== 'completed')
    .map((node) => node.id);
  return {
    sessionId: options.run.sessionId,
    plan,
    nodes: execution.nodes.map(toNodeReport),
    citations,
    failedNodes,
    composer,
    usage: options.run.usage.usage(),
    state: runState(execution.nodes),
    ...(files.files().length === 0 ? {} : { files: files.files() }),
  };
}

/**
 * Composes the answer from the executed steps (with a reviewer's `feedback` when a review sent
 * the previous one back): its text, run result and the fleet's failure if any. Undefined when
 * the run was aborted meanwhile.
 */
async function composeRun(
  options: OrchestrateRunOptions,
  {
    plan,
    execution,
    memory,
    answer: published,
    files,
    feedback,
  }: {
    plan: Plan;
    execution: ExecutionResult;
    memory: RunMemory | undefined;
    answer: AnswerPublisher;
    files: RunFileKeeper;
    feedback?: string | undefined;
  },
): Promise<ComposedRun | undefined> {
  const { run, session } = options;
  const { signal, logger } = run;
  run.progress({ type: 'compose-start' });
  const steps = composeSteps(plan, execution);
  const single = answeringStep(plan);
  const singleStep = steps.find((step) => step.id === single);
  // The step's answer went out as it was written: the composer must not rewrite it.
  const streamedStep =
    published.shown !== '' &&
    singleStep?.state === 'completed' &&
    (singleStep.summary ?? '').trim() !== ''
      ? singleStep.id
      : undefined;
  // A single step's answer streamed before a hand-off grew the plan: it was shown, so it stays
  // the start of the answer, and the composer's answer (of every step) follows it.
  const grownAfter = streamedStep === undefined && single === undefined ? published.shown : '';
  if (grownAfter !== '') published.push('\n\n');
  let answer;
  try {
    // Started with planning, so normally done long before; bounded by the extractor's time-out.
    const known = memory === undefined ? undefined : await memory.settled;
    answer = await run.usage.measure('composer', () =>
      composeAnswer({
        request: session.request,
        steps,
        profile: known === undefined ? undefined : composerProfile(known),
        llm: options.options.llm,
        logger,
        signal,
        onText: streamedStep === undefined ? (text) => published.push(text) : undefined,
        streamedStep,
        tableRows: options.options.answerTableRows,
        feedback,
      }),
    );
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  }
  return {
    text: published.finalText(grownAfter === '' ? answer.text : `${grownAfter}\n\n${answer.text}`),
    result: runResultOf(options, {
      plan,
      execution,
      files,
      citations: answer.citations,
      composer: answer.composer,
    }),
    failure: runFailure(execution.nodes),
  };
}

/**
 * An answer composed before (a reviewed one, after a restart), with its run result rebuilt from
 * the steps: its citations are the steps' sources numbered as the composer numbered them.
 */
function storedRun(
  options: OrchestrateRunOptions,
  {
    plan,
    execution,
    files,
    text,
  }: { plan: Plan; execution: ExecutionResult; files: RunFileKeeper; text: string },
): ComposedRun {
  const steps = composeSteps(plan, execution);
  const { citations } = composeOffline({ request: options.session.request, steps });
  return {
    text,
    result: runResultOf(options, {
      plan,
      execution,
      files,
      citations,
      composer: options.options.llm === undefined ? 'offline' : 'llm',
    }),
    failure: runFailure(execution.nodes),
  };
}

/**
 * The plan's one answering step, whose answer, when its agent streams it, is shown while it is
 * written and is then the run's answer (the composer does not rewrite it): the only node of a
 * one-node plan. A plan with more nodes is composed, even when one node gathers the others' work,
 * because the composer's answer cites every step's sources and names the steps that failed; an
 * agent that sends its answer whole is composed as before (greeting, brief answers).
 */
export function answeringStep(plan: Plan): string | undefined {
  return plan.nodes.length === 1 ? plan.nodes[0]?.id : undefined;
}

/**
 * Why the run as a whole failed, or undefined: the fleet's failure — no step was done and every
 * step failed for a reason of the fleet ({@link isFleetFailure}: agents unreachable or silent after
 * retries, circuits open, their upstream failing). The run then ends FAILED, an API error for its
 * client. A run whose steps failed for reasons of their tasks (a program that failed, an agent
 * not configured, a denial) is not a failure of the fleet: it is answered, with per step what
 * happened (`RunResult.state` says how much was done; docs/architecture.md §5, "Failures").
 */
export function runFailure(nodes: readonly NodeRun[]): string | undefined {
  if (!isFleetFailure(nodes)) return undefined;
  const reasons = nodes
    .filter((node) => node.state === 'failed')
    .map((node) => `${node.id} (${node.agent}): ${node.error ?? 'unknown error'}`)
    .join('; ');
  return `The fleet could not run any step — ${reasons}`;
}

/**
 * The session's `error` for a run answered although no step was done (`RunResult.state`
 * `failed`): what went wrong, per step, in one line.
 */
function failedStepsSummary(nodes: readonly RunResult['nodes'][number][]): string {
  const reasons = nodes
    .filter((node) => node.state !== 'completed')
    .map((node) => `${node.id} (${node.agent}): ${node.error ?? 'it did not run'}`)
    .join('; ');
  return `No step was done — ${reasons}`;
}

/** The run's memory, when the orchestrator has one and the run has a user (see `memoryUser`). */
function startMemory({
  options,
  session,
  resumed,
  memoryUser,
  run,
}: OrchestrateRunOptions): RunMemory | undefined {
  const services = options.memory;
  if (services === undefined || (resumed && memoryUser === undefined)) return undefined;
  // The extraction's model call is the run's step `memory`, counted once it has settled (before
  // the composer, which waits for it).
  const meter = createUsageMeter();
  const memory = meter.run(() =>
    startRunMemory({
      services,
      owner: { tenant: session.tenant, user: memoryUser ?? DEFAULT_USER_ID },
      message: resumed ? undefined : session.request,
      logger: run.logger,
      log: run.log,
    }),
  );
  void memory.settled.then(() => run.usage.addMetered('memory', meter.usage()));
  return memory;
}

/**
 * The planner, with what it reports about its model calls added to the run's usage as the step
 * `planner` (every call: re-planning and repairs add to it).
 */
function meteredPlanner(askPlanner: AskPlanner, run: RunContext): AskPlanner {
  return (request, callOptions) =>
    askPlanner(request, {
      ...callOptions,
      onUsage: (usage) => {
        run.usage.report({ step: 'planner', agent: 'planner', usage });
        callOptions.onUsage?.(usage);
      },
    });
}

/**
 * Records the result, streams `run-end`, the `result` artifact and COMPLETED — or, with `failure`
 * (the fleet's failure: {@link runFailure}), the same answer and result but `run-end` `failed`,
 * the session `failed` and the task FAILED with the reason, so no client reads the fleet's failure
 * as an answer. A run answered though no step was done (`result.state` `failed`: the steps failed
 * for reasons of their tasks) ends the session `failed` (its work failed) with `run-end` `failed`,
 * but the task COMPLETED: the answer, whose `RunResult` says the state, is what the client reads.
 */
async function endCompleted(
  { run, queue, keeper }: OrchestrateRunOptions,
  {
    text,
    result: given,
    failure,
    published,
  }: {
    text: string;
    result: RunResult;
    failure?: string | undefined;
    /** The answer's chunks sent so far: the artifact's last chunk carries the rest. */
    published?: AnswerPublisher | undefined;
  },
): Promise<string> {
  const { writer, sessionId } = run;
  // Every end of a started run lists the run's files (a plan not approved: its attachments).
  const kept = keeper?.files() ?? [];
  const result = given.files === undefined && kept.length > 0 ? { ...given, files: kept } : given;
  const workFailed = failure !== undefined || result.state === 'failed';
  const error = failure ?? (workFailed ? failedStepsSummary(result.nodes) : undefined);
  writer.record((draft) => {
    draft.status = workFailed ? 'failed' : 'completed';
    if (error !== undefined) draft.error = error;
    draft.result = {
      text,
      citations: result.citations,
      composer: result.composer,
      failedNodes: result.failedNodes,
      ...(result.usage === undefined ? {} : { usage: result.usage }),
      ...(result.state === undefined ? {} : { state: result.state }),
    };
  });
  await writer.written();
  // The rest of an answer already streaming (its sources, files, tables) goes out before
  // `run-end`, so a reader that shows the answer as one piece (the Responses API's message item)
  // gets it whole; an answer not yet shown goes out whole in the result artifact below.
  if (published !== undefined && published.shown !== '' && text.startsWith(published.shown)) {
    published.push(text.slice(published.shown.length));
  }
  run.progress({ type: 'run-end', state: workFailed ? 'failed' : 'completed' });
  queue.push(
    published === undefined
      ? {
          type: 'artifact',
          artifact: { name: 'result', parts: [textPart(text), dataPart(result)] },
          lastChunk: true,
        }
      : published.finish(text, result),
  );
  if (failure !== undefined) {
    queue.push({
      type: 'status',
      state: 'TASK_STATE_FAILED',
      message: failure,
      metadata: { sessionId },
    });
    run.logger.warn({ ...run.log, failedNodes: result.failedNodes, reason: failure }, 'run failed');
    return text;
  }
  queue.push({
    type: 'status',
    state: 'TASK_STATE_COMPLETED',
    metadata: { sessionId, ...(result.state === undefined ? {} : { runState: result.state }) },
  });
  run.logger.info(
    {
      ...run.log,
      failedNodes: result.failedNodes,
      composer: result.composer,
      runState: result.state,
    },
    workFailed ? 'run answered, no step done' : 'run completed',
  );
  return text;
}

/**
 * Which excluded agents or skills (`steering.exclude`) the request needed: the heuristic planner
 * (no LLM call) plans it with every agent the run could use before its exclusions.
 */
async function excludedAgentsNeeded(
  options: OrchestrateRunOptions,
  agentsBeforeSteering: () => Promise<AvailableAgent[]>,
): Promise<string[]> {
  const { run, session, input } = options;
  const all = (await agentsBeforeSteering()).map((agent) => agent.summary);
  const probe = await meteredPlanner(options.options.askPlanner, run)(
    {
      request: session.request,
      history: [...session.history],
      agents: all,
      strategy: 'heuristic',
    },
    { signal: run.signal },
  );
  return excludedNeeded(probe.plan, input.steering, all);
}

/**
 * Only excluded agents or skills could do the request: nothing runs, and the run completes with
 * an answer naming them.
 */
function endExcluded(
  options: OrchestrateRunOptions,
  { plan, needed }: { plan: Plan; needed: readonly string[] },
): Promise<string> {
  const names = needed.map((name) => `"${name}"`).join(', ');
  const text = `This request needs ${names}, which the request excluded (X-Fleet-Agents / fleet_agents "exclude"), so no agent was run. Send it again without excluding ${needed.length === 1 ? 'it' : 'them'} to have it answered.`;
  const result: RunResult = {
    sessionId: options.run.sessionId,
    plan,
    nodes: [],
    citations: [],
    failedNodes: [],
    composer: 'offline',
    usage: options.run.usage.usage(),
    state: 'partial',
  };
  return endCompleted(options, { text, result });
}

/**
 * The plan was not approved (denied without instructions, timed out, expired): nothing ran. The
 * run completes — it did what the person decided — with an answer saying so; every step is
 * `skipped` ("the plan was not approved").
 */
function endNotApproved(
  options: OrchestrateRunOptions,
  { plan, reason }: { plan: Plan; reason: string },
): Promise<string> {
  const error = `the plan was not approved (${reason})`;
  const text = [
    `The plan was not approved (${reason}), so no step was run.`,
    plan.nodes.length === 0 ? '' : `The plan was:\n${previewPlan(plan)}`,
  ]
    .filter((section) => section !== '')
    .join('\n\n');
  options.run.writer.record((draft) => {
    for (const node of plan.nodes) {
      draft.nodes[node.id] = { agent: node.agent, state: 'skipped', attempts: 0, error };
    }
  });
  const result: RunResult = {
    sessionId: options.run.sessionId,
    plan,
    nodes: plan.nodes.map((node) => ({
      id: node.id,
      agent: node.agent,
      state: 'skipped',
      attempts: 0,
      error,
    })),
    citations: [],
    failedNodes: plan.nodes.map((node) => node.id),
    composer: 'offline',
    usage: options.run.usage.usage(),
    // Nothing ran, as the person decided: nothing failed either.
    state: 'partial',
  };
  return endCompleted(options, { text, result });
}

async function endFailed(
  { run, queue }: OrchestrateRunOptions,
  message: string,
): Promise<undefined> {
  run.writer.record((draft) => {
    draft.status = 'failed';
    draft.error = message;
  });
  await run.writer.written();
  run.progress({ type: 'run-end', state: 'failed' });
  queue.push({
    type: 'status',
    state: 'TASK_STATE_FAILED',
    message,
    metadata: { sessionId: run.sessionId },
  });
  run.logger.warn({ ...run.log, reason: message }, 'run failed');
  return undefined;
}

/**
 * The run's signal aborted. A hand-over (shutdown, lost lease) leaves the session as it is for
 * another orchestrator to resume; anything else is a cancel: pending approvals are marked
 * `denied` with the instructions "session canceled", the session `canceled`, and
 * `session-canceled` is published so a run of it elsewhere stops too.
 */
async function endAborted(options: OrchestrateRunOptions): Promise<undefined> {
  const { run, queue } = options;
  const { writer, signal, sessionId, sessions } = run;
  const reason: unknown = signal.reason;
  if (isRunHandover(reason)) {
    writer.stop();
    queue.push({
      type: 'status',
      state: 'TASK_STATE_FAILED',
      message: [
        textPart(`${reason.message} Resume session ${sessionId} to follow it.`),
        dataPart({ handedOver: { sessionId } }),
      ],
      metadata: { sessionId, handedOver: true },
    });
    run.logger.info({ ...run.log, reason: reason.message }, 'run handed over');
    return undefined;
  }
  const message = reason instanceof Error ? reason.message : 'The run was canceled.';
  const denied: string[] = [];
  writer.record((draft) => {
    // A change may be applied twice (to a stale copy first): count only the last application.
    denied.length = 0;
    const now = new Date().toISOString();
    for (const approval of Object.values(draft.approvals)) {
      if (approval.status !== 'pending') continue;
      approval.status = 'denied';
      approval.instructions = 'session canceled';
      approval.decidedAt = now;
      denied.push(approval.id);
    }
    draft.status = 'canceled';
    draft.error = message;
  });
  await writer.written();
  const published = [
    ...denied.map((approvalId) =>
      sessions.publish(sessionId, { type: 'approval-decided', approvalId, status: 'denied' }),
    ),
    ...(options.canceledElsewhere()
      ? []
      : [sessions.publish(sessionId, { type: 'session-canceled' })]),
  ];
  await Promise.all(published.map((publishing) => publishing.catch(() => undefined)));
  run.progress({ type: 'run-end', state: 'canceled' });
  // When CancelTask aborted the turn the task is CANCELED already and this is ignored.
  queue.push({
    type: 'status',
    state: 'TASK_STATE_CANCELED',
    message,
    metadata: { sessionId },
  });
  run.logger.info(run.log, 'run canceled');
  return undefined;
}

function onExecutionEvent({
  event,
  writer,
  progress,
  logger,
  log,
  signal,
  throttle,
}: {
  event: ExecutionEvent;
  writer: SessionWriter;
  progress: (event: ProgressEvent) => void;
  logger: RunLogger;
  log: object;
  signal: AbortSignal;
  /** The steps' own progress lines: a step's pending one goes out before its end. */
  throttle: ProgressThrottle | undefined;
}): void {
  // A run handed over records nothing more: the nodes stay as they were for the next runner.
  if (isRunHandover(signal.reason)) return;
  switch (event.type) {
    case 'node-start': {
      recordNodeStart(writer, event.nodeId, event.attempt);
      progress({
        type: 'node-start',
        nodeId: event.nodeId,
        agent: event.agent,
        attempt: event.attempt,
      });
      return;
    }
    case 'node-task':
      writer.record((draft) => {
        const node = draft.nodes[event.nodeId];
        if (node !== undefined) node.taskId = event.taskId;
      });
      return;
    case 'node-retry':
      logger.warn(
        {
          ...log,
          nodeId: event.nodeId,
          agent: event.agent,
          attempt: event.attempt,
          reason: event.error,
          delayMs: event.delayMs,
        },
        'retrying a step',
      );
      return;
    case 'node-end': {
      const { run } = event;
      const state = endState(run);
      throttle?.flush(event.nodeId);
      recordNodeEnd(writer, { nodeId: event.nodeId, run, state });
      progress({
        type: 'node-end',
        nodeId: event.nodeId,
        agent: event.agent,
        state,
        durationMs: event.durationMs,
        ...(run.summary === undefined ? {} : { summary: truncate(run.summary) }),
        ...(run.error === undefined ? {} : { error: run.error }),
      });
      return;
    }
    case 'node-added':
      recordAddedNodes(writer, [event.node]);
      progress({
        type: 'node-added',
        node: event.node,
        ...(event.reason === undefined ? {} : { reason: event.reason }),
      });
      return;
    case 'handoff-refused':
      logger.info(
        { ...log, nodeId: event.nodeId, target: event.target, reason: event.reason },
        'hand-off refused',
      );
      progress({
        type: 'handoff-refused',
        nodeId: event.nodeId,
        agent: event.agent,
        target: event.target,
        reason: event.reason,
      });
      return;
  }
}

/** Records that a step started (again): running, its attempts, and when it first started. */
function recordNodeStart(writer: SessionWriter, nodeId: string, attempt: number): void {
  const startedAt = new Date().toISOString();
  writer.record((draft) => {
    const node = draft.nodes[nodeId];
    if (node === undefined) return;
    node.state = 'running';
    node.attempts = attempt;
    node.startedAt ??= startedAt;
  });
}

/** Records how a step ended: its state, result or error, task, approval and files. */
function recordNodeEnd(
  writer: SessionWriter,
  { nodeId, run, state }: { nodeId: string; run: NodeRun; state: ReturnType<typeof endState> },
): void {
  writer.record((draft) => {
    // Why a step ran again (a review sent it back) stays on it once it ran.
    const revision = draft.nodes[nodeId]?.revision;
    draft.nodes[nodeId] = {
      ...(revision === undefined ? {} : { revision }),
      agent: run.agent,
      state,
      attempts: run.attempts,
      ...(run.startedAt === undefined ? {} : { startedAt: new Date(run.startedAt).toISOString() }),
      ...(run.endedAt === undefined ? {} : { endedAt: new Date(run.endedAt).toISOString() }),
      ...(run.summary === undefined ? {} : { summary: run.summary }),
      ...(run.data === undefined ? {} : { data: run.data }),
      ...(run.error === undefined ? {} : { error: run.error }),
      ...(run.failure === undefined || state !== 'failed' ? {} : { failure: run.failure }),
      ...(run.taskId === undefined ? {} : { taskId: run.taskId }),
      ...(run.approvalId === undefined ? {} : { approvalId: run.approvalId }),
      ...(run.effectiveTask === undefined ? {} : { effectiveTask: run.effectiveTask }),
      ...(run.files === undefined || run.files.length === 0
        ? {}
        : { files: run.files.map((file) => file.id) }),
    };
  });
}

function endState(run: NodeRun): 'completed' | 'failed' | 'rejected' | 'skipped' {
  return run.state === 'completed' || run.state === 'skipped' || run.state === 'rejected'
    ? run.state
    : 'failed';
}

function truncate(text: string): string {
  return text.length <= MAX_PROGRESS_SUMMARY ? text : `${text.slice(0, MAX_PROGRESS_SUMMARY)}…`;
}
