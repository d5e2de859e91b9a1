import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { getFreePort } from './get-free-port';
import { type RunningProcess, startProcess } from './start-process';
import { SCRIPTED_OPENAI_BIN, startScriptedOpenAIProcess } from './start-scripted-openai-process';

describe('startProcess', () => {
  const started: RunningProcess[] = [];

  beforeAll(() => {
    if (!existsSync(SCRIPTED_OPENAI_BIN)) {
      throw new Error(`Build first: npx tsc -b packages/testing (missing ${SCRIPTED_OPENAI_BIN})`);
    }
  });

  afterEach(async () => {
    await Promise.all(started.splice(0).map((running) => running.stop('SIGKILL')));
  });

  it('starts the scripted-openai CLI, waits for READY and stops it with SIGTERM (exit code 0)', async () => {
    const cli = await startProcess({
      name: 'scripted-openai',
      args: [SCRIPTED_OPENAI_BIN, '--content', 'pong'],
      readyLine: /^READY (http:\/\/127\.0\.0\.1:\d+)$/,
    });
    started.push(cli);
    expect(cli.pid).toBeGreaterThan(0);
    const url = cli.match?.[1];
    expect(url).toBeDefined();
    expect(cli.output()).toBe(`READY ${url}\n`);

    const client = new OpenAI({ apiKey: 'x', baseURL: `${url}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'ping' }],
    });
    expect(completion.choices[0]?.message.content).toBe('pong');

    await expect(cli.stop()).resolves.toBe(0);
    await expect(cli.exited).resolves.toBe(0);
    await expect(cli.stop()).resolves.toBe(0);
  });

  it('waits for a readyUrl to answer 200', async () => {
    const port = await getFreePort();
    const cli = await startProcess({
      name: 'scripted-openai',
      args: [SCRIPTED_OPENAI_BIN, '--port', String(port)],
      readyUrl: `http://127.0.0.1:${port}/v1/models`,
    });
    started.push(cli);
    const response = await fetch(`http://127.0.0.1:${port}/v1/models`);
    expect(response.status).toBe(200);
  });

  it('rejects with the output tail when the process exits before it is ready', async () => {
    const failing = startProcess({
      name: 'broken-service',
      args: [
        '-e',
        "console.log('loading config'); console.error('REDIS_URL is missing'); process.exit(3)",
      ],
      readyLine: /^READY/,
    });
    await expect(failing).rejects.toThrow(
      /broken-service did not become ready: exited with code 3/,
    );
    await expect(failing).rejects.toThrow(/loading config\n[\s\S]*REDIS_URL is missing/);
  });

  it('rejects and kills the process when readiness times out', async () => {
    const failing = startProcess({
      name: 'slow-service',
      args: ['-e', "console.log('still booting'); setInterval(() => {}, 1000)"],
      readyLine: /^READY/,
      // Long enough for node to boot and print on a loaded 2-core machine (300 ms was not).
      timeoutMs: 2500,
    });
    await expect(failing).rejects.toThrow(
      /slow-service did not become ready: no readiness after 2500 ms/,
    );
    await expect(failing).rejects.toThrow(/still booting/);
  });

  it('rejects when the command cannot be spawned', async () => {
    await expect(
      startProcess({ name: 'ghost', command: '/nonexistent/binary', args: [], readyLine: /x/ }),
    ).rejects.toThrow(/ghost did not become ready: could not start \/nonexistent\/binary/);
  });

  it('passes env additions and removals to the child', async () => {
    const child = await startProcess({
      name: 'env-echo',
      args: [
        '-e',
        "console.log('ENV ' + process.env.FLEET_TEST_VALUE + ' ' + (process.env.PATH === undefined)); setInterval(() => {}, 1000)",
      ],
      env: { FLEET_TEST_VALUE: 'forty-two', PATH: undefined },
      readyLine: /^ENV (\S+) (\S+)$/,
    });
    started.push(child);
    expect(child.match?.slice(1)).toEqual(['forty-two', 'true']);
    await expect(child.stop('SIGTERM')).resolves.toBeNull();
  });
});

describe('startScriptedOpenAIProcess', () => {
  it('streams the fixed content in the requested number of chunks', async () => {
    const llm = await startScriptedOpenAIProcess({
      content: 'one two three four',
      chunks: 2,
      models: ['bench-model'],
    });
    try {
      const client = new OpenAI({ apiKey: 'x', baseURL: llm.baseURL, maxRetries: 0 });
      const stream = await client.chat.completions.create({
        model: 'bench-model',
        messages: [{ role: 'user', content: 'go' }],
        stream: true,
      });
      const deltas: string[] = [];
      for await (const chunk of stream) {
        const content = chunk.choices[0]?.delta.content;
        if (content) deltas.push(content);
      }
      expect(deltas).toHaveLength(2);
      expect(deltas.join('')).toBe('one two three four');
      const models = await client.models.list();
      expect(models.data.map((model) => model.id)).toEqual(['bench-model']);
    } finally {
      await expect(llm.stop('SIGINT')).resolves.toBe(0);
    }
  });
});

describe('getFreePort', () => {
  it('returns a port that can be listened on', async () => {
    const port = await getFreePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
