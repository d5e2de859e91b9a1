/**
 * Fair admission end to end (docs/architecture.md §5, "Scheduling"): on a running fleet whose
 * orchestrator runs one run at a time and lets one more wait, a queued run says so in its stream,
 * and a run past the bound gets OpenAI's 429 `rate_limit_error` with `Retry-After` from the
 * gateway — the orchestrator's RATE_LIMITED, carried over A2A.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFleet, type RunningFleet } from './support/start-fleet';

const QUESTION = 'Find the hotel rules in our documents.';

/** A streamed orchestrated question, read frame by frame. */
interface OpenRun {
  status: number;
  /** Reads until a `fleet` event of `type`; the frames read so far stay read. */
  until(type: string): Promise<void>;
  /** Reads to the end; the answer's text. */
  rest(): Promise<string>;
}

async function ask(fleet: RunningFleet): Promise<Response> {
  return fetch(`${fleet.baseURL}/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${fleet.apiKey}`,
      'content-type': 'application/json',
      'x-routing-mode': 'orchestration',
    },
    body: JSON.stringify({
      model: 'fleet-orchestration',
      stream: true,
      messages: [{ role: 'user', content: QUESTION }],
    }),
  });
}

async function openRun(fleet: RunningFleet): Promise<OpenRun> {
  const response = await ask(fleet);
  if (response.body === null) throw new Error('the answer has no body');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  let content = '';
  const types: string[] = [];
  const readFrame = async (): Promise<boolean> => {
    const { value, done } = await reader.read();
    if (done) return false;
    pending += value;
    let boundary = pending.indexOf('\n\n');
    while (boundary !== -1) {
      const frame = pending.slice(0, boundary);
      pending = pending.slice(boundary + 2);
      boundary = pending.indexOf('\n\n');
      const data = frame.startsWith('data: ') ? frame.slice(6) : '';
      if (data === '' || data === '[DONE]') continue;
      const chunk = JSON.parse(data) as {
        choices?: { delta?: { content?: string } }[];
        fleet?: { type?: string };
      };
      content += chunk.choices?.[0]?.delta?.content ?? '';
      if (chunk.fleet?.type !== undefined) types.push(chunk.fleet.type);
    }
    return true;
  };
  return {
    status: response.status,
    async until(type) {
      while (!types.includes(type)) {
        if (!(await readFrame()))
          throw new Error(`the stream ended without ${type}: ${types.join(', ')}`);
      }
    },
    async rest() {
      while (await readFrame());
      return content;
    },
  };
}

describe('fair admission on a running fleet', () => {
  let fleet: RunningFleet;
  let openGate: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });

  beforeAll(async () => {
    fleet = await startFleet({
      serviceEnv: {
        orchestrator: {
          ORCHESTRATOR_MAX_ACTIVE_RUNS: '1',
          ORCHESTRATOR_MAX_ACTIVE_RUNS_PER_TENANT: '1',
          ORCHESTRATOR_MAX_QUEUED_RUNS_PER_TENANT: '1',
        },
      },
      agents: [
        {
          name: 'docs',
          skills: [{ id: 'documents', tags: ['documents', 'policy', 'rules'] }],
          // Every step waits until the test lets it finish: the first run holds the only slot.
          respond: async () => {
            await gate;
            return { text: 'The hotel rules: no pets.' };
          },
        },
      ],
    });
  }, 90_000);

  afterAll(async () => {
    openGate();
    await fleet?.stop();
  }, 60_000);

  it('queues a run when the slot is taken and refuses one past the bound with a 429', async () => {
    const first = await openRun(fleet);
    expect(first.status).toBe(200);
    await first.until('node-start');

    const second = await openRun(fleet);
    expect(second.status).toBe(200);
    await second.until('queue-start');

    const refused = await ask(fleet);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = (await refused.json()) as { error: { type: string; code: string } };
    expect(body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });

    openGate();
    expect(await first.rest()).toContain('no pets');
    expect(await second.rest()).toContain('no pets');
  });
});
