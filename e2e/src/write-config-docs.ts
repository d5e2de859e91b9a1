/** `pnpm docs:config`: regenerates `.env.example` and `docs/configuration.md`. */
import { writeFileSync } from 'node:fs';
import {
  CONFIGURATION_DOC_PATH,
  ENV_EXAMPLE_PATH,
  renderConfigurationDoc,
  renderEnvExampleFile,
} from './config-docs';

writeFileSync(ENV_EXAMPLE_PATH, renderEnvExampleFile());
writeFileSync(CONFIGURATION_DOC_PATH, renderConfigurationDoc());
process.stdout.write(`wrote ${ENV_EXAMPLE_PATH}\nwrote ${CONFIGURATION_DOC_PATH}\n`);
