import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { StartSdkAgentOptions } from './start-sdk-agent';
import { artifactEvent, sdkText, statusEvent, taskSnapshot } from './sdk-events';

/** An answer the question agent received. */
export interface QuestionAnswer {
  taskId: string;
  messageId: string;
  text: string;
}

/** Options for {@link createQuestionExecutor}. */
export interface QuestionExecutorOptions {
  /** @default 'Which city should I book?' */
  question?: string;
}

/** The question agent's executor, with the answers it received. */
export interface QuestionExecutor extends AgentExecutor {
  answers: QuestionAnswer[];
}

/** A card the fleet's heuristic planner routes hotel bookings to. */
export const TRAVEL_AGENT_CARD = {
  name: 'travel',
  description: 'Books hotels for business trips.',
  skills: [
    {
      id: 'book-hotel',
      name: 'Book hotel',
      description: 'Books a hotel room; asks where when the request does not say.',
      tags: ['hotel', 'booking', 'trip'],
      examples: ['Book a hotel for my trip next week'],
    },
  ],
} satisfies Pick<StartSdkAgentOptions, 'name' | 'description' | 'skills'>;

/**
 * A question agent on `@a2a-js/sdk`: a new task asks a question (TASK_STATE_INPUT_REQUIRED, the
 * question as the status message's text); the continuation of the same task takes the message's
 * text as the answer and completes with a `result` artifact "Booked a hotel in <answer>.".
 *
 * @example
 * const travel = createQuestionExecutor();
 * await startSdkAgent({ ...TRAVEL_AGENT_CARD, executor: travel });
 */
export function createQuestionExecutor({
  question = 'Which city should I book?',
}: QuestionExecutorOptions = {}): QuestionExecutor {
  const answers: QuestionAnswer[] = [];

  function execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    bus.publish(taskSnapshot(context));
    if (context.task === undefined) {
      bus.publish(statusEvent(context, { state: 'TASK_STATE_WORKING' }));
      bus.publish(
        statusEvent(context, { state: 'TASK_STATE_INPUT_REQUIRED', parts: [{ text: question }] }),
      );
      return Promise.resolve();
    }
    const answer = sdkText(context.userMessage.parts).trim();
    answers.push({
      taskId: context.taskId,
      messageId: context.userMessage.messageId,
      text: answer,
    });
    bus.publish(statusEvent(context, { state: 'TASK_STATE_WORKING' }));
    bus.publish(
      artifactEvent(context, {
        artifactId: `${context.taskId}-result`,
        name: 'result',
        parts: [{ text: `Booked a hotel in ${answer}.` }],
      }),
    );
    bus.publish(statusEvent(context, { state: 'TASK_STATE_COMPLETED' }));
    return Promise.resolve();
  }

  return {
    answers,
    execute,
    cancelTask(taskId, bus) {
      bus.publish(statusEvent({ taskId, contextId: '' }, { state: 'TASK_STATE_CANCELED' }));
      return Promise.resolve();
    },
  };
}
