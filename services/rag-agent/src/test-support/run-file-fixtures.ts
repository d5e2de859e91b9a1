import { createHash } from 'node:crypto';

/** UTF-8 bytes of a text. */
export function text(content: string): Uint8Array {
  return new TextEncoder().encode(content);
}

/** Where the step chart of the run file suites comes from: `code-agent`'s `chart` step in `session-1`. */
export const STEP_CHART_ORIGIN = {
  sessionId: 'session-1',
  nodeId: 'chart',
  agent: 'code-agent',
  source: 'step',
} as const;

/** What the step chart (`png`, put as `chart.png` from {@link STEP_CHART_ORIGIN}) says of itself once kept. */
export function keptChart(png: Uint8Array): Record<string, unknown> {
  return {
    name: 'chart.png',
    mediaType: 'image/png',
    size: png.byteLength,
    sha256: createHash('sha256').update(png).digest('hex'),
    ...STEP_CHART_ORIGIN,
  };
}
