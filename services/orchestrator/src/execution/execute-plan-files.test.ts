import { describe, expect, it } from '@jest/globals';
import type { Plan, RunFile } from '@fleet/a2a';
import { executePlan, type ExecutionEvent } from './execute-plan';
import type { KeepStepFiles, NodeOutcome, StepFilePart } from './node-outcome';

const plan: Plan = {
  nodes: [
    { id: 'draw', agent: 'code-agent', task: 'Draw', dependsOn: [] },
    { id: 'broken', agent: 'code-agent', task: 'Fail', dependsOn: [] },
  ],
  rationale: 'files',
  confidence: 1,
};

const png: StepFilePart = { filename: 'chart.png', mediaType: 'image/png', raw: 'iVBORw0KGgo=' };

const kept: RunFile = {
  id: `file-${'b'.repeat(32)}`,
  name: 'chart.png',
  mediaType: 'image/png',
  size: 8,
  sha256: '0'.repeat(64),
  source: 'step',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-02T00:00:00.000Z',
};

describe('executePlan and the files a step made', () => {
  it('keeps a completed step’s files before it ends, and never a failed step’s', async () => {
    const asked: { nodeId: string; files: readonly StepFilePart[] }[] = [];
    const keepFiles: KeepStepFiles = ({ node, files }) => {
      asked.push({ nodeId: node.id, files });
      return Promise.resolve([kept]);
    };
    const events: ExecutionEvent[] = [];
    const result = await executePlan({
      plan,
      sessionId: 's-1',
      tenant: 'acme',
      keepFiles,
      onEvent: (event) => events.push(event),
      invokeAgent: ({ node }): Promise<NodeOutcome> =>
        Promise.resolve(
          node.id === 'draw'
            ? { status: 'completed', summary: 'Drawn.', files: [png] }
            : { status: 'failed', error: 'no', failure: 'task' },
        ),
    });
    expect(asked).toEqual([{ nodeId: 'draw', files: [png] }]);
    expect(result.nodes.find((node) => node.id === 'draw')?.files).toEqual([kept]);
    expect(result.nodes.find((node) => node.id === 'broken')?.files).toBeUndefined();
    const ended = events.find((event) => event.type === 'node-end' && event.nodeId === 'draw');
    expect(ended?.type === 'node-end' ? ended.run.files : undefined).toEqual([kept]);
  });

  it('completes a step whose files were all refused', async () => {
    const result = await executePlan({
      plan: { ...plan, nodes: [plan.nodes[0] as Plan['nodes'][number]] },
      sessionId: 's-1',
      tenant: 'acme',
      keepFiles: () => Promise.resolve([]),
      invokeAgent: () => Promise.resolve({ status: 'completed', summary: 'Drawn.', files: [png] }),
    });
    expect(result.nodes[0]).toMatchObject({ state: 'completed', summary: 'Drawn.' });
    expect(result.nodes[0]?.files).toBeUndefined();
  });
});
