import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import {
  CONFIGURATION_DOC_PATH,
  ENV_EXAMPLE_PATH,
  renderConfigurationDoc,
  renderEnvExampleFile,
} from './config-docs';

describe('configuration docs', () => {
  it('.env.example lists every variable the services read (run `pnpm docs:config` if not)', () => {
    expect(readFileSync(ENV_EXAMPLE_PATH, 'utf8')).toBe(renderEnvExampleFile());
  });

  it('docs/configuration.md matches the config specs (run `pnpm docs:config` if not)', () => {
    expect(readFileSync(CONFIGURATION_DOC_PATH, 'utf8')).toBe(renderConfigurationDoc());
  });
});
