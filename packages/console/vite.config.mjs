// Builds the console (app/) into bundle/, which the gateway serves at /console. Run by `pnpm install`
// (the package's `prepare`), `pnpm build`, `pnpm test` and `pnpm fleet up`.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: `${here}app`,
  base: '/console/',
  // The gateway's Content-Security-Policy allows no inline script or style: everything the page
  // needs is a file of its own.
  build: {
    outDir: `${here}bundle`,
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: true,
    target: 'es2022',
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
