import type { AgentAvailability, AgentCard } from '@fleet/a2a';
import { buildAgentCard } from '@fleet/a2a/server';
import { withAvailability } from '@fleet/agent-kit';

/** The code agent's version, as its Agent Card states it. */
export const CODE_AGENT_VERSION = '0.1.0';

/** The skill on the code agent's card. */
export const CODE_SKILLS = { run: 'run-python' } as const;

/** Options for {@link buildCodeCard}. */
export interface BuildCodeCardOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8086`. */
  url: string;
  /** Declares the fleet's bearer scheme; set when `/a2a` needs FLEET_INTERNAL_TOKEN. @default true */
  internalToken?: boolean;
  /** Whether runs wait for a person's approval (stated in the description). @default true */
  requiresApproval?: boolean;
  /** Whether the agent can work now (`codeAvailability`), stated in the availability extension. */
  availability?: AgentAvailability | undefined;
}

/**
 * The code agent's Agent Card: name `code-agent`, streaming, one skill `run-python` whose
 * description, tags and examples let the planner pick it for calculations, data analysis and
 * charts, and the internal-token security scheme.
 *
 * @example
 * const card = buildCodeCard({ url: 'http://127.0.0.1:8086' });
 */
export function buildCodeCard({
  url,
  internalToken = true,
  requiresApproval = true,
  availability,
}: BuildCodeCardOptions): AgentCard {
  const approval = requiresApproval
    ? " Running the program needs a person's approval: the task waits in TASK_STATE_AUTH_REQUIRED with the full program as the preview, and a denial runs nothing."
    : '';
  const card = buildAgentCard({
    name: 'code-agent',
    description: `Writes a Python program for a task and runs it in a locked-down sandbox (bubblewrap: no network, read-only system, CPU, memory, process, file-size, time and output limits), then returns the program, its output and the files it wrote, such as PNG charts. Use it for exact calculations, statistics, data transformation (CSV, JSON, tables from earlier steps), simulations and charts; it uses the results of earlier plan steps as input, and files sent with the task (CSV, JSON, …) read-only at /data. Python with numpy, pandas and matplotlib, no internet access.${approval}`,
    version: CODE_AGENT_VERSION,
    url,
    streaming: true,
    internalToken,
    skills: [
      {
        id: CODE_SKILLS.run,
        name: 'Write and run Python',
        description:
          'Writes Python for the task (with the LLM; offline, only a program given in the task in a ```python fenced block is run) and runs it in the sandbox. The earlier steps\' results are in inputs.json; file parts of the task (raw bytes) are read-only at /data/<name>. Answers with the artifact "result": a text part (what ran and its output), a data part { code, stdout, stderr, exitCode, outcome, limitMessage, files, attempts } and one file part per file the program wrote (e.g. chart.png). A failing program may be fixed and tried again, each new version after a new approval.',
        tags: [
          'code',
          'python',
          'calculation',
          'math',
          'statistics',
          'data-analysis',
          'chart',
          'plot',
          'csv',
          'sandbox',
        ],
        examples: [
          'Calculate the compound interest on 10,000 EUR at 4% over 15 years.',
          'Plot the monthly revenue from the previous step as a bar chart (PNG).',
          'Compute the mean, median and standard deviation of these numbers: 3, 7, 7, 19, 24.',
          'Parse the CSV rows found earlier and total the amounts per customer.',
          'Group the attached sales.csv by month with pandas and plot the monthly totals as chart.png.',
          'Run this code: ```python\nprint(sum(range(101)))\n```',
        ],
        inputModes: ['text/plain', 'application/json', 'text/csv', 'application/octet-stream'],
        outputModes: ['text/plain', 'application/json', 'image/png', 'text/csv'],
      },
    ],
  });
  return availability === undefined ? card : withAvailability(card, availability);
}
