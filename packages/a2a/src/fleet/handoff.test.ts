import { describe, expect, it } from '@jest/globals';
import { dataPart, textPart } from '../schemas/helpers';
import { handoffPart, MAX_HANDOFF_CONTEXT, MAX_HANDOFFS_PER_STEP, readHandoffs } from './handoff';

describe('readHandoffs', () => {
  it('reads the part our agents send, one or several', () => {
    const one = handoffPart({ skill: 'web-search', task: 'Find the G3 price' });
    const two = handoffPart([
      { agent: 'mail-agent', task: 'Draft the mail' },
      { agent: 'code-agent', task: 'Plot it', context: 'rows: 3' },
    ]);
    expect(readHandoffs([textPart('done'), one, two])).toEqual({
      requests: [
        { skill: 'web-search', task: 'Find the G3 price' },
        { agent: 'mail-agent', task: 'Draft the mail' },
        { agent: 'code-agent', task: 'Plot it', context: 'rows: 3' },
      ],
      refused: [],
    });
  });

  it('takes the shapes foreign agents send: other key names, JSON context, a long context cut', () => {
    const { requests, refused } = readHandoffs([
      dataPart({
        handoffs: [
          { agentName: 'web-agent', instructions: ' Search again ', context: { product: 'G3' } },
          {
            skill_id: 'send-mail',
            message: 'Mail it',
            context: 'x'.repeat(MAX_HANDOFF_CONTEXT + 50),
          },
        ],
      }),
    ]);
    expect(refused).toEqual([]);
    expect(requests[0]).toEqual({
      agent: 'web-agent',
      task: 'Search again',
      context: '{"product":"G3"}',
    });
    expect(requests[1]?.skill).toBe('send-mail');
    expect(requests[1]?.context).toHaveLength(MAX_HANDOFF_CONTEXT);
    expect(requests[1]?.context?.endsWith('…')).toBe(true);
  });

  it('refuses what does not read, and more than a step may ask for, without throwing', () => {
    const many = Array.from({ length: MAX_HANDOFFS_PER_STEP + 2 }, (_, index) => ({
      agent: 'web-agent',
      task: `task ${index}`,
    }));
    const { requests, refused } = readHandoffs([
      dataPart({ handoff: { task: 'nobody named' } }),
      dataPart({ handoff: { agent: 'web-agent', task: '   ' } }),
      dataPart({ handoff: 'not an object' }),
      dataPart({ handoff: many }),
    ]);
    expect(requests).toHaveLength(MAX_HANDOFFS_PER_STEP);
    expect(refused).toHaveLength(3 + 2);
    expect(refused[0]).toMatch(/names an agent or a skill/);
    expect(refused[1]).toMatch(/says what to do/);
    expect(refused.at(-1)).toMatch(/at most 4 times/);
  });

  it('ignores data parts that are not hand-offs', () => {
    expect(
      readHandoffs([dataPart({ progress: { stage: 'x' } }), dataPart([1, 2]), textPart('hi')]),
    ).toEqual({
      requests: [],
      refused: [],
    });
  });
});
