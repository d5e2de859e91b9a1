import { describe, expect, it } from '@jest/globals';
import type { StreamResponse, Task } from '../../../schemas/core';
import { InMemoryTaskStore } from '../../in-memory-task-store';
import type { TaskBusMessage, TaskRecord } from '../../task-store';
import { TaskWriter, type WrittenTurn } from './task-writer';

const base: Task = {
  id: 'task-1',
  contextId: 'ctx',
  status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date(0).toISOString() },
};

function working(step: number): { task: Task; event: StreamResponse } {
  const status = { state: 'TASK_STATE_WORKING' as const, timestamp: new Date(step).toISOString() };
  return {
    task: { ...base, status, metadata: { step } },
    event: { statusUpdate: { taskId: base.id, contextId: base.contextId, status } },
  };
}

/** An in-memory store whose writes wait until the test lets each one through (or fails it). */
class GatedStore extends InMemoryTaskStore {
  readonly writes: { version: number; messages: number[] }[] = [];
  private gates: { open: () => void; fail: (error: Error) => void }[] = [];

  override async saveAndPublish(
    record: TaskRecord,
    messages: readonly TaskBusMessage[],
  ): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.gates.push({ open: resolve, fail: reject });
    });
    this.writes.push({
      version: record.version,
      messages: messages.map((message) => (message.type === 'event' ? message.version : -1)),
    });
    await super.saveAndPublish(record, messages);
  }

  /** Writes asked for so far (let through or still waiting). */
  get asked(): number {
    return this.writes.length + this.gates.length;
  }

  /** Lets the oldest waiting write through, once it is waiting. */
  async open(error?: Error): Promise<void> {
    while (this.gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const gate = this.gates.shift();
    if (error) gate?.fail(error);
    else gate?.open();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function turnOn(): WrittenTurn & { pushed: StreamResponse[] } {
  const pushed: StreamResponse[] = [];
  return {
    taskId: base.id,
    record: { task: base, version: 1 },
    queue: { push: (event) => pushed.push(event) },
    pushed,
  };
}

describe('TaskWriter', () => {
  it('coalesces events applied during a save into the next one, and announces each only once saved', async () => {
    const store = new GatedStore();
    const turn = turnOn();
    const writer = new TaskWriter(store, turn);
    const heard: number[] = [];
    await store.subscribe(base.id, (message) => {
      if (message.type === 'event') heard.push(message.version);
    });

    const first = working(1);
    await writer.apply(first.task, first.event);
    expect(turn.record.version).toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    // Applied while the first save is in flight.
    for (const step of [2, 3]) {
      const next = working(step);
      await writer.apply(next.task, next.event);
    }
    expect(turn.record.version).toBe(4);
    expect(turn.pushed).toEqual([]);
    expect(heard).toEqual([]);

    await store.open();
    expect(turn.pushed).toHaveLength(1);
    expect(heard).toEqual([2]);
    expect((await store.load(base.id))?.version).toBe(2);

    await store.open();
    await writer.settled();
    expect(store.writes).toEqual([
      { version: 2, messages: [2] },
      { version: 4, messages: [3, 4] },
    ]);
    expect(heard).toEqual([2, 3, 4]);
    expect(turn.pushed).toEqual([1, 2, 3].map((step) => working(step).event));
    expect(await store.load(base.id)).toEqual({ task: working(3).task, version: 4 });
  });

  it('after a failed save: back to the last saved version, the failure surfaces once, then writes go on', async () => {
    const store = new GatedStore();
    const turn = turnOn();
    const writer = new TaskWriter(store, turn);
    const first = working(1);
    await writer.apply(first.task, first.event);
    await store.open();
    await writer.settled();
    const second = working(2);
    await writer.apply(second.task, second.event);
    expect(turn.record.version).toBe(3);

    await store.open(new Error('Redis went away'));
    await expect(writer.settled()).rejects.toThrow('Redis went away');
    expect(turn.record).toEqual({ task: first.task, version: 2 });
    expect(turn.pushed).toEqual([first.event]);

    const third = working(3);
    await writer.apply(third.task, third.event);
    await store.open();
    await writer.settled();
    expect(await store.load(base.id)).toEqual({ task: third.task, version: 3 });
    expect(turn.pushed).toEqual([first.event, third.event]);
  });

  it('uses save, then publish, with a store that cannot do both at once', async () => {
    const memory = new InMemoryTaskStore();
    const calls: string[] = [];
    const store = {
      load: (id: string) => memory.load(id),
      list: memory.list.bind(memory),
      claim: memory.claim.bind(memory),
      subscribe: memory.subscribe.bind(memory),
      close: () => memory.close(),
      save: (record: TaskRecord) => {
        calls.push(`save ${record.version}`);
        return memory.save(record);
      },
      publish: (taskId: string, message: TaskBusMessage) => {
        calls.push(`publish ${message.type === 'event' ? message.version : 'cancel'}`);
        return memory.publish(taskId, message);
      },
    };
    const turn = turnOn();
    const writer = new TaskWriter(store, turn);
    // Both in the same turn of the event loop: one batch.
    await Promise.all([1, 2].map((step) => writer.apply(working(step).task, working(step).event)));
    await writer.settled();
    expect(calls).toEqual(['save 3', 'publish 2', 'publish 3']);
    expect(turn.pushed).toHaveLength(2);
  });

  describe('progress lines', () => {
    const line = { progressLine: true };
    const tick = () => new Promise((resolve) => setImmediate(resolve));

    it('announces a progress line at once and saves it with the next state change', async () => {
      const store = new GatedStore();
      const turn = turnOn();
      const writer = new TaskWriter(store, turn);
      const heard: number[] = [];
      await store.subscribe(base.id, (message) => {
        if (message.type === 'event') heard.push(message.version);
      });

      await writer.apply(working(1).task, working(1).event, line);
      await tick();
      expect(turn.pushed).toEqual([working(1).event]);
      // Not saved, nor heard on the task's channel, yet.
      expect(store.asked).toBe(0);
      expect(heard).toEqual([]);
      expect(await store.load(base.id)).toBeUndefined();

      // A state change: one write holds both, and the state change is announced after it.
      await writer.apply(working(2).task, working(2).event);
      await tick();
      expect(turn.pushed).toEqual([working(1).event]);
      await store.open();
      await writer.settled();
      expect(store.writes).toEqual([{ version: 3, messages: [2, 3] }]);
      expect(heard).toEqual([2, 3]);
      expect(turn.pushed).toEqual([working(1).event, working(2).event]);
    });

    it('keeps the order: a line behind an unsaved state change goes out right after it', async () => {
      const store = new GatedStore();
      const turn = turnOn();
      const writer = new TaskWriter(store, turn);
      await writer.apply(working(1).task, working(1).event);
      await tick();
      // Applied while the state change's write is in flight.
      await writer.apply(working(2).task, working(2).event, line);
      expect(turn.pushed).toEqual([]);

      // The state change's write returns: both are announced; the line is not saved yet.
      await store.open();
      expect(turn.pushed).toEqual([working(1).event, working(2).event]);
      expect(store.writes).toEqual([{ version: 2, messages: [2] }]);
      await writer.apply(working(3).task, working(3).event, line);
      expect(turn.pushed).toHaveLength(3);

      const settling = writer.settled();
      await store.open();
      await settling;
      expect(store.writes).toEqual([
        { version: 2, messages: [2] },
        { version: 4, messages: [3, 4] },
      ]);
    });

    it('saves progress lines alone a moment later, and at once when the turn settles', async () => {
      const store = new GatedStore();
      const turn = turnOn();
      const writer = new TaskWriter(store, turn);
      await writer.apply(working(1).task, working(1).event, line);
      await tick();
      expect(store.asked).toBe(0);
      // Waits for the write to be asked for: the delay, not a state change, starts it.
      await store.open();
      expect(store.writes).toEqual([{ version: 2, messages: [2] }]);

      await writer.apply(working(2).task, working(2).event, line);
      const settling = writer.settled();
      await store.open();
      await settling;
      expect(store.writes).toEqual([
        { version: 2, messages: [2] },
        { version: 3, messages: [3] },
      ]);
      expect(turn.pushed).toEqual([working(1).event, working(2).event]);
    });

    it('after a failed save of an announced line: back to the last saved version, failure surfaces', async () => {
      const store = new GatedStore();
      const turn = turnOn();
      const writer = new TaskWriter(store, turn);
      await writer.apply(working(1).task, working(1).event, line);
      expect(turn.pushed).toEqual([working(1).event]);
      const settling = writer.settled();
      settling.catch(() => undefined);
      await store.open(new Error('Redis went away'));
      await expect(settling).rejects.toThrow('Redis went away');
      expect(turn.record).toEqual({ task: base, version: 1 });
      expect(await store.load(base.id)).toBeUndefined();
    });
  });
});
