import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  dataPart,
  documentsCommandSchema,
  findData,
  nodeInputSchema,
  textPart,
  type AgentCard,
  type Part,
  type Plan,
} from '@fleet/a2a';
import { discoverAgentCard } from '@fleet/a2a/client';
import type { AgentExecute } from '@fleet/a2a/server';
import type { RunningServer } from '@fleet/http';
import { summaryOf, type AvailableAgent } from '../discovery';
import { answering, startTestAgent } from '../test-support/start-test-agent';
import { createA2AAgentInvoker } from './a2a-agent-invoker';
import { executePlan } from './execute-plan';
import { createStepFilesFetcher, documentsAgentOf } from './fetch-step-files';

const TOKEN = 'test-internal-token-0123456789';
const SALES = 'month,total\n2026-01,120\n2026-02,80\n';
/** The step limit the test sets: sales.csv fits, big.csv does not. */
const MAX_TOTAL_BYTES = 1000;

describe('step files: documents a plan node names go with its message', () => {
  const servers: RunningServer[] = [];
  const agents: AvailableAgent[] = [];
  /** The documents commands the RAG-like agent got. */
  const commands: unknown[] = [];
  /** What the code-like agent got, by node id. */
  const received = new Map<string, Part[]>();

  async function start(
    name: string,
    execute: AgentExecute,
    skills?: { id: string; name: string; description: string; tags?: string[] }[],
  ): Promise<void> {
    const server = await startTestAgent({
      name,
      execute,
      token: TOKEN,
      ...(skills ? { skills } : {}),
    });
    servers.push(server);
    const card: AgentCard = await discoverAgentCard(server.url);
    agents.push({
      name,
      url: server.url,
      card,
      summary: summaryOf(card),
      replicas: [{ url: server.url, card }],
    });
  }

  beforeAll(async () => {
    // A RAG-like agent: keeps sales.csv and big.csv for tenant acme, nothing else.
    await start(
      'docs',
      answering(({ message }) => {
        const command = findData(message.parts, documentsCommandSchema)?.documents;
        commands.push(command);
        const known: Record<string, string> = { 'sales.csv': SALES, 'big.csv': 'x'.repeat(2000) };
        const content =
          command?.op === 'get' && command.tenant === 'acme' && command.filename !== undefined
            ? known[command.filename]
            : undefined;
        if (content === undefined || command?.op !== 'get') {
          return [
            {
              type: 'status',
              state: 'TASK_STATE_FAILED',
              message: [
                textPart('No such document.'),
                dataPart({ error: { code: 'NOT_FOUND', message: 'No such document.' } }),
              ],
            },
          ];
        }
        return [
          {
            type: 'artifact',
            artifact: {
              name: 'result',
              parts: [
                dataPart({ document: { id: `id-${command.filename}` } }),
                {
                  raw: Buffer.from(content).toString('base64'),
                  filename: command.filename ?? '',
                  mediaType: 'text/csv',
                },
              ],
            },
          },
        ];
      }),
      [
        { id: 'answer', name: 'Answer', description: 'answers', tags: ['rag', 'documents'] },
        {
          id: 'ingest',
          name: 'Manage documents',
          description: 'keeps',
          tags: ['documents', 'ingest'],
        },
      ],
    );
    // A code-like agent: records the parts of every message it gets.
    await start(
      'coder',
      answering(({ message }) => {
        const nodeId = findData(message.parts, nodeInputSchema)?.fleet.nodeId ?? '?';
        received.set(nodeId, message.parts);
        const files = message.parts.filter((part) => part.raw !== undefined).length;
        return [
          { type: 'artifact', artifact: { name: 'result', parts: [textPart(`${files} files`)] } },
        ];
      }),
    );
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.shutdown()));
  });

  it('finds the documents agent by its card', () => {
    expect(documentsAgentOf(agents)?.name).toBe('docs');
    expect(documentsAgentOf(agents.filter((agent) => agent.name !== 'docs'))).toBeUndefined();
  });

  it('sends the files of a step as file parts, and fails only the steps whose files cannot be had', async () => {
    const plan: Plan = {
      nodes: [
        { id: 'plot', agent: 'coder', task: 'Plot sales.csv', dependsOn: [], files: ['sales.csv'] },
        { id: 'missing', agent: 'coder', task: 'Read q3.csv', dependsOn: [], files: ['q3.csv'] },
        {
          id: 'large',
          agent: 'coder',
          task: 'Read both',
          dependsOn: [],
          files: ['sales.csv', 'big.csv'],
        },
        { id: 'after', agent: 'coder', task: 'Go on', dependsOn: ['missing'] },
      ],
      rationale: 'test',
      confidence: 1,
    };
    const result = await executePlan({
      plan,
      invokeAgent: createA2AAgentInvoker({
        findAgent: (name) => Promise.resolve(agents.find((agent) => agent.name === name)),
        token: TOKEN,
        logger: { debug: () => undefined, warn: () => undefined },
      }),
      stepFiles: createStepFilesFetcher({
        availableAgents: () => Promise.resolve(agents),
        token: TOKEN,
        maxTotalBytes: MAX_TOTAL_BYTES,
      }),
      sessionId: 'session-1',
      tenant: 'acme',
      retry: { maxAttempts: 1 },
    });
    const byId = new Map(result.nodes.map((node) => [node.id, node]));

    expect(byId.get('plot')).toMatchObject({ state: 'completed', summary: '1 files' });
    const file = received.get('plot')?.find((part) => part.raw !== undefined);
    expect(file).toEqual({
      raw: Buffer.from(SALES).toString('base64'),
      filename: 'sales.csv',
      mediaType: 'text/csv',
    });
    // Beside the task's text and the node input.
    expect(findData(received.get('plot') ?? [], nodeInputSchema)?.fleet.tenant).toBe('acme');

    expect(byId.get('missing')).toMatchObject({ state: 'failed', failure: 'task' });
    expect(byId.get('missing')?.error).toBe(
      'the file "q3.csv" is not among the documents of tenant acme (upload it first, or check its name)',
    );
    expect(received.has('missing')).toBe(false);

    expect(byId.get('large')).toMatchObject({ state: 'failed', failure: 'task' });
    expect(byId.get('large')?.error).toContain('the file "big.csv" brings the step\'s files to');
    expect(received.has('large')).toBe(false);

    // The rest of the run goes on: a dependent of the failed step still runs.
    expect(byId.get('after')).toMatchObject({ state: 'completed', summary: '0 files' });
    // Only the run's tenant was asked for.
    expect(commands).not.toHaveLength(0);
    for (const command of commands) expect(command).toMatchObject({ op: 'get', tenant: 'acme' });
  });

  it('fails a step with files when no agent keeps documents', async () => {
    const fetch = createStepFilesFetcher({
      availableAgents: () => Promise.resolve(agents.filter((agent) => agent.name !== 'docs')),
      token: TOKEN,
    });
    const outcome = await fetch({
      node: { id: 'n', agent: 'coder', task: 't', dependsOn: [], files: ['sales.csv'] },
      tenant: 'acme',
      signal: undefined,
    });
    expect(outcome).toEqual({
      status: 'failed',
      error:
        'its files (sales.csv) could not be fetched: no agent that keeps documents (the RAG agent) is available',
      failure: 'fleet',
    });
  });
});
