import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { SdkSkill, StartSdkAgentOptions } from './start-sdk-agent';
import {
  artifactEvent,
  messageEvent,
  sdkData,
  sdkText,
  statusEvent,
  taskSnapshot,
} from './sdk-events';

/** The ways an agent may answer that the shapes agent covers, one per skill. */
export type ReplyShape =
  'message' | 'chunked' | 'artifacts' | 'failed' | 'rejected' | 'canceled' | 'never-final';

/** What each shape sends, for assertions. */
export const SHAPE_TEXTS = {
  /** The Message reply's text. */
  message: 'The office is open from 9:00 to 17:00, Monday to Friday.',
  /** The chunks of the one `result` artifact, in order (joined, they are the answer). */
  chunked: ['Revenue grew 12%. ', 'Costs fell 3%. ', 'Headcount is 41. ', 'Outlook: stable.'],
  /** The texts of the two artifacts (neither named `result`). */
  artifacts: ['Highlights: the Lisbon office opened.', 'Risks: two suppliers deliver late.'],
  /** The FAILED status message. */
  failed: 'The exchange-rate feed is down (HTTP 503).',
  /** The REJECTED status message. */
  rejected: 'Refunds over €500 need a manager.',
  /** The CANCELED status message. */
  canceled: 'The carrier withdrew the tracking request.',
  /** The WORKING status message sent before returning without a final state. */
  'never-final': 'Counting the stock…',
} as const;

/** The skill behind each shape: tags the fleet's heuristic planner routes requests by. */
export const SHAPE_SKILLS: Record<ReplyShape, SdkSkill> = {
  message: {
    id: 'office-hours',
    name: 'Office hours',
    description: 'When the office is open.',
    tags: ['office hours', 'opening'],
  },
  chunked: {
    id: 'quarterly-report',
    name: 'Quarterly report',
    description: 'Writes the quarterly report, streamed in chunks.',
    tags: ['quarterly', 'report'],
  },
  artifacts: {
    id: 'team-digest',
    name: 'Team digest',
    description: 'The weekly digest: highlights and risks, one artifact each.',
    tags: ['digest', 'newsletter'],
  },
  failed: {
    id: 'exchange-rates',
    name: 'Exchange rates',
    description: 'Looks up currency exchange rates.',
    tags: ['exchange', 'currency'],
  },
  rejected: {
    id: 'refunds',
    name: 'Refunds',
    description: 'Issues customer refunds.',
    tags: ['refund'],
  },
  canceled: {
    id: 'shipments',
    name: 'Shipments',
    description: 'Tracks parcels.',
    tags: ['shipment', 'parcel', 'tracking'],
  },
  'never-final': {
    id: 'inventory',
    name: 'Inventory',
    description: 'Counts the stock in the warehouse.',
    tags: ['inventory', 'stock', 'warehouse'],
  },
};

/** A card for the shapes agent: one skill per {@link ReplyShape}. */
export const SHAPES_AGENT_CARD = {
  name: 'ops-desk',
  description: 'Operations desk built on @a2a-js/sdk.',
  skills: Object.values(SHAPE_SKILLS),
} satisfies Pick<StartSdkAgentOptions, 'name' | 'description' | 'skills'>;

const SHAPES = Object.keys(SHAPE_SKILLS) as ReplyShape[];

/**
 * The shape to answer with: the skill the fleet's plan chose (`fleet.skill` in the node input's
 * data part), else the first shape whose skill id or tag the text names.
 */
function shapeOf(context: RequestContext): ReplyShape {
  const { parts } = context.userMessage;
  const fleet = sdkData(parts, 'fleet') as { skill?: unknown } | undefined;
  const bySkill = SHAPES.find((shape) => SHAPE_SKILLS[shape].id === fleet?.skill);
  if (bySkill !== undefined) return bySkill;
  const text = sdkText(parts).toLowerCase();
  return (
    SHAPES.find((shape) => {
      const skill = SHAPE_SKILLS[shape];
      return [skill.id, ...(skill.tags ?? [])].some((word) => text.includes(word));
    }) ?? 'message'
  );
}

/**
 * An agent on `@a2a-js/sdk` that covers every way of answering, one per skill (see
 * {@link SHAPE_SKILLS}; the texts are {@link SHAPE_TEXTS}):
 *
 * - `message`: a Message instead of a task;
 * - `chunked`: one `result` artifact in four chunks (`append: true` after the first, `lastChunk`
 *   on the last), then COMPLETED;
 * - `artifacts`: two artifacts, neither named `result`, then COMPLETED;
 * - `failed` / `rejected` / `canceled`: that terminal state, with a status message saying why;
 * - `never-final`: WORKING, then the executor returns without a final state (the stream ends).
 *
 * @example
 * await startSdkAgent({ ...SHAPES_AGENT_CARD, executor: createShapesExecutor() });
 */
export function createShapesExecutor(): AgentExecutor {
  function execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const shape = shapeOf(context);
    if (shape === 'message') {
      bus.publish(messageEvent(context, [{ text: SHAPE_TEXTS.message }]));
      return Promise.resolve();
    }
    bus.publish(taskSnapshot(context));
    bus.publish(statusEvent(context, { state: 'TASK_STATE_WORKING' }));
    switch (shape) {
      case 'chunked':
        SHAPE_TEXTS.chunked.forEach((text, index) => {
          bus.publish(
            artifactEvent(context, {
              artifactId: `${context.taskId}-report`,
              name: 'result',
              parts: [{ text }],
              append: index > 0,
              lastChunk: index === SHAPE_TEXTS.chunked.length - 1,
            }),
          );
        });
        bus.publish(statusEvent(context, { state: 'TASK_STATE_COMPLETED' }));
        break;
      case 'artifacts':
        SHAPE_TEXTS.artifacts.forEach((text, index) => {
          bus.publish(
            artifactEvent(context, {
              artifactId: `${context.taskId}-${index}`,
              name: index === 0 ? 'highlights' : 'risks',
              parts: [{ text }],
            }),
          );
        });
        bus.publish(statusEvent(context, { state: 'TASK_STATE_COMPLETED' }));
        break;
      case 'failed':
        bus.publish(
          statusEvent(context, {
            state: 'TASK_STATE_FAILED',
            parts: [{ text: SHAPE_TEXTS.failed }],
          }),
        );
        break;
      case 'rejected':
        bus.publish(
          statusEvent(context, {
            state: 'TASK_STATE_REJECTED',
            parts: [{ text: SHAPE_TEXTS.rejected }],
          }),
        );
        break;
      case 'canceled':
        bus.publish(
          statusEvent(context, {
            state: 'TASK_STATE_CANCELED',
            parts: [{ text: SHAPE_TEXTS.canceled }],
          }),
        );
        break;
      case 'never-final':
        bus.publish(
          statusEvent(context, {
            state: 'TASK_STATE_WORKING',
            parts: [{ text: SHAPE_TEXTS['never-final'] }],
          }),
        );
        break;
    }
    return Promise.resolve();
  }

  return {
    execute,
    cancelTask(taskId, bus) {
      bus.publish(statusEvent({ taskId, contextId: '' }, { state: 'TASK_STATE_CANCELED' }));
      return Promise.resolve();
    },
  };
}
