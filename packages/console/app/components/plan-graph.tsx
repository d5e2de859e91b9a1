import dagre from '@dagrejs/dagre';
import { useMemo } from 'preact/hooks';
import type { NodeState, PlanNode, SessionNodeView } from '../api';
import { originWords, stateWords } from '../format';

const NODE_WIDTH = 190;
const NODE_HEIGHT = 56;

interface Placed {
  id: string;
  agent: string;
  /** Set for a step added while the run went. */
  added: boolean;
  x: number;
  y: number;
}

interface Layout {
  width: number;
  height: number;
  nodes: Placed[];
  edges: { from: string; to: string; points: { x: number; y: number }[] }[];
}

/** Lays the plan out with dagre: dependencies point at the nodes that wait for them. */
function layoutPlan(nodes: readonly PlanNode[], direction: 'LR' | 'TB'): Layout {
  const graph = new dagre.graphlib.Graph<
    {
      rankdir: string;
      nodesep: number;
      ranksep: number;
      marginx: number;
      marginy: number;
      width?: number;
      height?: number;
    },
    { width: number; height: number; x: number; y: number },
    { points?: { x: number; y: number }[] }
  >();
  graph.setGraph({ rankdir: direction, nodesep: 24, ranksep: 48, marginx: 8, marginy: 8 });
  graph.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(nodes.map((node) => node.id));
  for (const node of nodes) {
    graph.setNode(node.id, { width: NODE_WIDTH, height: NODE_HEIGHT, x: 0, y: 0 });
  }
  for (const node of nodes) {
    for (const dependency of node.dependsOn) {
      if (ids.has(dependency)) graph.setEdge(dependency, node.id);
    }
  }
  dagre.layout(graph);
  const label = graph.graph();
  return {
    width: Math.max(label.width ?? NODE_WIDTH, NODE_WIDTH),
    height: Math.max(label.height ?? NODE_HEIGHT, NODE_HEIGHT),
    nodes: nodes.map((node) => {
      const placed = graph.node(node.id);
      return {
        id: node.id,
        agent: node.agent,
        added: node.origin !== undefined,
        x: placed.x,
        y: placed.y,
      };
    }),
    edges: graph.edges().map((edge) => ({
      from: edge.v,
      to: edge.w,
      points: graph.edge(edge).points ?? [],
    })),
  };
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

/**
 * The plan as a graph, each node coloured by its state (and the state written under its name, so
 * colour is never the only sign). The drawing is one image for screen readers; the table beside it
 * (`PlanTable`) carries the same facts as text.
 */
export function PlanGraph({
  plan,
  states,
  narrow,
}: {
  plan: readonly PlanNode[];
  states: Record<string, SessionNodeView>;
  narrow: boolean;
}) {
  const direction = narrow ? 'TB' : 'LR';
  const shape = plan
    .map((node) => `${node.id}<${node.dependsOn.join(',')}${node.origin === undefined ? '' : '+'}`)
    .join(';');
  // Re-layout only when the plan's shape changes, not on every state change.
  const layout = useMemo(() => layoutPlan(plan, direction), [shape, direction]);
  const summary = plan
    .map(
      (node) =>
        `${node.id} (${node.agent}${node.origin === undefined ? '' : `, ${originWords(node.origin)}`}): ${stateWords(states[node.id]?.state ?? 'pending')}`,
    )
    .join('; ');
  return (
    <figure class="plan-graph">
      <svg
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        width={layout.width}
        role="img"
        aria-label={`Plan graph. ${summary}.`}
        preserveAspectRatio="xMidYMin meet"
      >
        <defs>
          <marker
            id="arrow"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto-start-reverse"
          >
            <path d="M 0 0 L 10 5 L 0 10 z" class="edge-head" />
          </marker>
        </defs>
        {layout.edges.map((edge) => (
          <polyline
            key={`${edge.from}->${edge.to}`}
            class="edge"
            points={edge.points.map((point) => `${point.x},${point.y}`).join(' ')}
            marker-end="url(#arrow)"
          />
        ))}
        {layout.nodes.map((node) => {
          const state: NodeState = states[node.id]?.state ?? 'pending';
          return (
            <g
              key={node.id}
              class={`node node-${state}${node.added ? ' node-added' : ''}`}
              data-node-id={node.id}
              data-added={node.added ? 'true' : undefined}
              data-state={state}
              transform={`translate(${node.x - NODE_WIDTH / 2},${node.y - NODE_HEIGHT / 2})`}
            >
              <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx="8" ry="8" />
              <text x={NODE_WIDTH / 2} y="22" class="node-title">
                {node.added ? `+ ${truncate(node.id, 18)}` : truncate(node.id, 20)}
              </text>
              <text x={NODE_WIDTH / 2} y="42" class="node-sub">
                {truncate(`${node.agent} · ${stateWords(state)}`, 32)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption class="legend" aria-hidden="true">
        {(['pending', 'running', 'waiting_approval', 'completed', 'failed'] as const).map(
          (state) => (
            <span key={state} class={`legend-item node-${state}`}>
              <svg width="12" height="12" aria-hidden="true">
                <rect width="12" height="12" rx="3" />
              </svg>
              {stateWords(state)}
            </span>
          ),
        )}
      </figcaption>
    </figure>
  );
}
