import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { createProgressThrottle, type NodeProgress } from './progress-throttle';

const line = (text: string, nodeId = 'search'): NodeProgress => ({
  nodeId,
  agent: 'web-agent',
  text,
});

describe('createProgressThrottle', () => {
  let sent: NodeProgress[];
  beforeEach(() => {
    jest.useFakeTimers();
    sent = [];
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('sends the first line at once and the latest waiting one when the interval has passed', () => {
    const throttle = createProgressThrottle({ intervalMs: 500, emit: (event) => sent.push(event) });
    throttle.push(line('Searching the web…'));
    throttle.push(line('Reading https://a.example…'));
    throttle.push(line('Reading https://b.example…'));
    expect(sent.map((event) => event.text)).toEqual(['Searching the web…']);
    jest.advanceTimersByTime(499);
    expect(sent).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(sent.map((event) => event.text)).toEqual([
      'Searching the web…',
      'Reading https://b.example…',
    ]);
  });

  it('drops a line that repeats the one sent before', () => {
    const throttle = createProgressThrottle({ intervalMs: 10, emit: (event) => sent.push(event) });
    throttle.push(line('Searching…'));
    jest.advanceTimersByTime(20);
    throttle.push(line('Searching…'));
    jest.advanceTimersByTime(20);
    throttle.push({ ...line('Searching…'), stage: 'search' });
    expect(sent).toHaveLength(2);
  });

  it('limits each step on its own, and keeps the last line for the step’s end', () => {
    const throttle = createProgressThrottle({
      intervalMs: 10,
      maxPerStep: 3,
      emit: (event) => sent.push(event),
    });
    for (let index = 1; index <= 100; index += 1) {
      throttle.push(line(`Item ${index}`));
      throttle.push(line(`Other ${index}`, 'other'));
      jest.advanceTimersByTime(10);
    }
    const texts = (nodeId: string): string[] =>
      sent.filter((event) => event.nodeId === nodeId).map((event) => event.text);
    expect(texts('search')).toEqual(['Item 1', 'Item 2']);
    throttle.flush('search');
    expect(texts('search')).toEqual(['Item 1', 'Item 2', 'Item 100']);
    throttle.push(line('Item 101'));
    throttle.flush('search');
    expect(texts('search')).toHaveLength(3);
    expect(texts('other')).toEqual(['Other 1', 'Other 2']);
  });

  it('sends a step’s waiting line at its end, and nothing once closed', () => {
    const throttle = createProgressThrottle({ intervalMs: 500, emit: (event) => sent.push(event) });
    throttle.push(line('Searching…'));
    throttle.push(line('Summarising…'));
    throttle.flush('search');
    expect(sent.map((event) => event.text)).toEqual(['Searching…', 'Summarising…']);
    throttle.push(line('Other', 'other'));
    throttle.push(line('Later', 'other'));
    throttle.close();
    jest.advanceTimersByTime(1000);
    throttle.push(line('After', 'third'));
    expect(sent.map((event) => event.text)).toEqual(['Searching…', 'Summarising…', 'Other']);
  });
});
