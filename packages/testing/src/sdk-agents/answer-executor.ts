import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import {
  artifactEvent,
  sdkData,
  sdkText,
  statusEvent,
  taskSnapshot,
  type WirePart,
} from './sdk-events';

/** One task an answer agent was given. */
export interface AnswerTask {
  taskId: string;
  /** The task's text (the step's task, with what earlier steps found). */
  text: string;
  /** The fleet's node input (`{ fleet: … }`), when the orchestrator sent one. */
  fleet: Record<string, unknown> | undefined;
}

/** What an answer agent replies to one task. */
export interface AnswerReply {
  /** The answer's text. */
  text: string;
  /**
   * Hand-offs to put in the result, as the wire data part `{ handoff: … }` (one object, or a
   * list), exactly as given: a foreign agent's hand-off.
   */
  handoff?: unknown;
  /** Where the hand-off goes. @default 'artifact' */
  handoffIn?: 'artifact' | 'status';
}

/** Options for {@link createAnswerExecutor}. */
export interface AnswerExecutorOptions {
  /** The reply to each task; `count` is 1 for the agent's first task, 2 for the second, … */
  reply: (task: AnswerTask, count: number) => AnswerReply;
}

/** An `@a2a-js/sdk` executor that answers from a script, and the tasks it was given. */
export interface AnswerExecutor extends AgentExecutor {
  tasks: AnswerTask[];
}

/**
 * An agent on `@a2a-js/sdk` that answers each task with text from a script (WORKING, one
 * artifact named `answer` — not `result` — with a text part and, when scripted, a hand-off data
 * part, then COMPLETED), recording every task it was given: what a foreign agent that hands work
 * off looks like to the fleet.
 *
 * @example
 * const web = createAnswerExecutor({ reply: (_task, n) => ({ text: `found it (${n})` }) });
 * await startSdkAgent({ name: 'web', description: 'Searches', skills, executor: web, token });
 */
export function createAnswerExecutor({ reply }: AnswerExecutorOptions): AnswerExecutor {
  const tasks: AnswerTask[] = [];
  function execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const parts = context.userMessage.parts;
    const fleet = sdkData(parts, 'fleet');
    const task: AnswerTask = {
      taskId: context.taskId,
      text: sdkText(parts),
      fleet:
        typeof fleet === 'object' && fleet !== null
          ? (fleet as Record<string, unknown>)
          : undefined,
    };
    tasks.push(task);
    const answer = reply(task, tasks.length);
    const handoff: WirePart[] =
      answer.handoff === undefined
        ? []
        : [{ data: { handoff: answer.handoff }, mediaType: 'application/json' }];
    const inStatus = answer.handoffIn === 'status';
    bus.publish(taskSnapshot(context));
    bus.publish(statusEvent(context, { state: 'TASK_STATE_WORKING' }));
    bus.publish(
      artifactEvent(context, {
        artifactId: `${context.taskId}-answer`,
        name: 'answer',
        parts: [{ text: answer.text }, ...(inStatus ? [] : handoff)],
      }),
    );
    bus.publish(
      statusEvent(context, {
        state: 'TASK_STATE_COMPLETED',
        parts: [{ text: 'Done.' }, ...(inStatus ? handoff : [])],
      }),
    );
    return Promise.resolve();
  }
  return { tasks, execute, cancelTask: () => Promise.resolve() };
}
