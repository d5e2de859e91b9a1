import { describe, expect, it } from '@jest/globals';
import { isFleetFailure, runState } from './run-state';

describe('runState', () => {
  it('is completed when every step was done', () => {
    expect(runState([{ state: 'completed' }, { state: 'completed' }])).toBe('completed');
  });

  it('is partial when some step was done and another was not', () => {
    expect(runState([{ state: 'completed' }, { state: 'failed', failure: 'task' }])).toBe(
      'partial',
    );
    expect(runState([{ state: 'completed' }, { state: 'rejected' }])).toBe('partial');
  });

  it('is failed when no step was done and one failed', () => {
    expect(runState([{ state: 'failed', failure: 'task' }, { state: 'rejected' }])).toBe('failed');
  });

  it('is partial, not failed, when a person declined every step', () => {
    expect(runState([{ state: 'rejected' }])).toBe('partial');
  });
});

describe('isFleetFailure', () => {
  it('is true only when no step was done and every failure is the fleet’s', () => {
    expect(isFleetFailure([{ state: 'failed', failure: 'fleet' }])).toBe(true);
    expect(isFleetFailure([{ state: 'failed', failure: 'fleet' }, { state: 'skipped' }])).toBe(
      true,
    );
  });

  it('is false when any step failed for a reason of its task, was declined or was done', () => {
    expect(
      isFleetFailure([
        { state: 'failed', failure: 'fleet' },
        { state: 'failed', failure: 'task' },
      ]),
    ).toBe(false);
    expect(isFleetFailure([{ state: 'failed' }])).toBe(false);
    expect(isFleetFailure([{ state: 'failed', failure: 'fleet' }, { state: 'rejected' }])).toBe(
      false,
    );
    expect(isFleetFailure([{ state: 'failed', failure: 'fleet' }, { state: 'completed' }])).toBe(
      false,
    );
    expect(isFleetFailure([])).toBe(false);
  });
});
