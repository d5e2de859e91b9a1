import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Where the console's built files are (`index.html` and `assets/`): `vite build` writes them to the
 * package's `bundle/` folder when `pnpm install`, `pnpm build`, `pnpm test` or `pnpm fleet up` runs.
 */
export const CONSOLE_BUNDLE_DIR = path.resolve(__dirname, '..', 'bundle');

/** True when the console has been built (its `index.html` exists). */
export function consoleIsBuilt(dir: string = CONSOLE_BUNDLE_DIR): boolean {
  return existsSync(path.join(dir, 'index.html'));
}

export type * from './wire';
