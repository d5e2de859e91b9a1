// Runs one of this package's TypeScript files in a plain Node process:
//   node run-ts.mjs <script.ts> [args...]
// Its `.ts` imports are transpiled on the fly, so the export tests exercise the current src/
// without a build, as the rest of the jest suite does. Type-checking is tsc -b's job.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import ts from 'typescript';

const require = createRequire(import.meta.url);

require.extensions['.ts'] = function compileTypeScript(module, filename) {
  const { outputText } = ts.transpileModule(readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
      inlineSourceMap: true,
    },
  });
  module._compile(outputText, filename);
};

// Make the script see the argv it would see as `node <script.ts> [args...]`.
const script = path.resolve(process.argv[2] ?? '');
process.argv.splice(1, 2, script);
require(script);
