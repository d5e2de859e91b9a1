import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { encodePng } from '../files/encode-png';
import type { StartSdkAgentOptions } from './start-sdk-agent';
import { artifactEvent, statusEvent, taskSnapshot, type WirePart } from './sdk-events';

/** A file the chart agent sends: its bytes and what it calls them. */
export interface ChartFile {
  filename: string;
  mediaType: string;
  bytes: Buffer;
}

/** Options for {@link createChartExecutor}. */
export interface ChartExecutorOptions {
  /**
   * The files of every answer, in one artifact named `chart` (not `result`), after a text part.
   * @default one 120×80 `sales chart.png`
   */
  files?: () => readonly ChartFile[];
}

/** The text part of the chart agent's answer. */
export const CHART_AGENT_TEXT = 'Here is the chart of the monthly sales.';

/** A card for the chart agent: one skill the heuristic planner finds by "chart" or "plot". */
export const CHART_AGENT_CARD = {
  name: 'chart-studio',
  description: 'Draws charts, built on @a2a-js/sdk.',
  skills: [
    {
      id: 'draw-chart',
      name: 'Draw a chart',
      description: 'Draws a chart (PNG) of the figures it is given.',
      tags: ['chart', 'plot', 'graph'],
    },
  ],
} satisfies Pick<StartSdkAgentOptions, 'name' | 'description' | 'skills'>;

/** The chart agent's default picture: a real 120×80 PNG. */
export function defaultChartFiles(): ChartFile[] {
  return [
    {
      filename: 'sales chart.png',
      mediaType: 'image/png',
      bytes: encodePng({ width: 120, height: 80 }),
    },
  ];
}

/**
 * An agent on `@a2a-js/sdk` that answers every task with a picture, the way an agent outside the
 * fleet may: WORKING, then one artifact named `chart` (not `result`) holding a text part and one
 * file part per file (`raw` base64, `filename`, `mediaType`), then COMPLETED.
 *
 * @example
 * await startSdkAgent({ ...CHART_AGENT_CARD, executor: createChartExecutor(), token });
 */
export function createChartExecutor({
  files = defaultChartFiles,
}: ChartExecutorOptions = {}): AgentExecutor {
  function execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    bus.publish(taskSnapshot(context));
    bus.publish(statusEvent(context, { state: 'TASK_STATE_WORKING' }));
    const fileParts: WirePart[] = files().map((file) => ({
      raw: file.bytes.toString('base64'),
      filename: file.filename,
      mediaType: file.mediaType,
    }));
    bus.publish(
      artifactEvent(context, {
        artifactId: `${context.taskId}-chart`,
        name: 'chart',
        parts: [{ text: CHART_AGENT_TEXT }, ...fileParts],
      }),
    );
    bus.publish(
      statusEvent(context, {
        state: 'TASK_STATE_COMPLETED',
        parts: [{ text: 'Drew the chart.' }],
      }),
    );
    return Promise.resolve();
  }
  return {
    execute,
    cancelTask: () => Promise.resolve(),
  };
}
