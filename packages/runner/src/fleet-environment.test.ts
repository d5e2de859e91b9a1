import { describe, expect, it } from '@jest/globals';
import { rejoinEnvironment } from './fleet-environment';
import { SERVICES } from './services';

describe('rejoinEnvironment', () => {
  it('keeps what the fleet started with, adds what is set now, and never moves fleet-wide variables', () => {
    const result = rejoinEnvironment({
      recorded: {
        OPENAI_API_KEY: 'sk-first',
        LOG_LEVEL: 'info',
        PLANNER_PORT: '9082',
        FLEET_INTERNAL_TOKEN: 'token-of-the-fleet',
      },
      current: {
        LOG_LEVEL: 'debug',
        PLANNER_PORT: '7000',
        REDIS_URL: 'redis://elsewhere:6379',
        FLEET_INTERNAL_TOKEN: 'token-of-the-fleet',
        NEW_SETTING: 'yes',
      },
      services: SERVICES,
    });
    expect(result.environment).toEqual({
      OPENAI_API_KEY: 'sk-first',
      LOG_LEVEL: 'debug',
      PLANNER_PORT: '9082',
      FLEET_INTERNAL_TOKEN: 'token-of-the-fleet',
      NEW_SETTING: 'yes',
    });
    expect(result.ignored).toEqual(['PLANNER_PORT', 'REDIS_URL']);
  });

  it('uses the current environment as it is for a state file without one', () => {
    const current = { PLANNER_PORT: '7000', LOG_LEVEL: 'debug' };
    expect(rejoinEnvironment({ recorded: undefined, current, services: SERVICES })).toEqual({
      environment: current,
      ignored: [],
    });
  });
});
