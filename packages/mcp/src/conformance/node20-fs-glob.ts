/**
 * Preload for running the MCP conformance suite on Node 20: `node --import <this file's .js>`.
 * The suite's bundle imports `globSync` from `fs`, which Node 22 added. This module adds
 * `fs.globSync` (a small implementation: `*`, `**` and literal segments, enough for the suite's
 * `**` + `/checks.json`) and registers a resolve hook that gives the suite's modules an `fs` with that
 * export; every other module gets Node's own `fs`.
 */
import fs from 'node:fs';
import { register } from 'node:module';
import { globSync } from './glob-sync';

const HOOKS = `
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: 'fleet-fs-glob:fs', shortCircuit: true };
  }
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (url !== 'fleet-fs-glob:fs') return next(url, context);
  return {
    format: 'module',
    shortCircuit: true,
    source: "import fs from 'node:fs'; export * from 'node:fs'; export default fs; export const globSync = (...args) => fs.globSync(...args);",
  };
}
`;

const patched = fs as typeof fs & { globSync?: typeof globSync };
patched.globSync ??= globSync;
register(`data:text/javascript,${encodeURIComponent(HOOKS)}`);
