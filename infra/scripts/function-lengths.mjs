#!/usr/bin/env node
// Lists the production functions and files of the repository that have grown past a length a
// person holds in mind: every function, method, arrow function or class member over --max lines
// (default 100, the project's limit) and every file over --max-file lines (default 600).
// Production means what the fleet ships and runs: services/ and packages/ sources. Tests, the test
// doubles (`test-support/` folders, `@fleet/testing`), the end-to-end suite (e2e/), generated
// output and dependencies are not counted.
//
//   node infra/scripts/function-lengths.mjs [--max N] [--max-file N] [--json] [--check]
//
// --check exits 1 when a function is over --max. Lengths count the
// lines from a function's first line to its last, comments and blank lines included, as a reader
// sees them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const ts = require('typescript');

const HELP = `Usage: node infra/scripts/function-lengths.mjs [options]

Lists production functions longer than --max lines and files longer than --max-file lines
(services/ and packages/ sources; not tests, test-support/ doubles, @fleet/testing or e2e/).

Options:
  --max N        longest function allowed, in lines (default 100)
  --max-file N   longest file reported, in lines (default 600)
  --json         print JSON instead of a table
  --check        exit with 1 when a function is longer than --max
  -h, --help     this help
`;

function parseArgs(argv) {
  const options = { max: 100, maxFile: 600, json: false, check: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const number = () => {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < 1) {
        console.error(`${arg} needs a whole number of lines, got ${argv[i] ?? 'nothing'}.`);
        process.exit(2);
      }
      return value;
    };
    if (arg === '--max') options.max = number();
    else if (arg === '--max-file') options.maxFile = number();
    else if (arg === '--json') options.json = true;
    else if (arg === '--check') options.check = true;
    else if (arg === '-h' || arg === '--help') {
      process.stdout.write(HELP);
      process.exit(0);
    } else {
      console.error(`Unknown option ${arg}.\n\n${HELP}`);
      process.exit(2);
    }
  }
  return options;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage', 'fixtures', 'test-support']);
/** Test code that lives beside production packages. */
const SKIPPED_PATHS = new Set([path.join('packages', 'testing')]);

/** Production sources: .ts/.tsx under services/ and packages/, no tests or test doubles. */
function* sources(dir) {
  for (const entry of readdirSync(dir)) {
    if (SKIPPED_DIRS.has(entry) || entry.startsWith('.')) continue;
    const full = path.join(dir, entry);
    if (SKIPPED_PATHS.has(path.relative(root, full))) continue;
    if (statSync(full).isDirectory()) yield* sources(full);
    else if (
      /\.tsx?$/.test(entry) &&
      !/\.(test|spec|d)\.tsx?$/.test(entry) &&
      !/\.test-/.test(entry)
    )
      yield full;
  }
}

/** A readable name for a function node: `name`, `Class.method`, `outer → (arrow)`. */
function nameOf(node, sourceFile) {
  if (node.name !== undefined) {
    const own = node.name.getText(sourceFile);
    const owner = node.parent;
    if (ts.isClassLike(owner) && owner.name !== undefined) return `${owner.name.text}.${own}`;
    return own;
  }
  const parent = node.parent;
  if (parent !== undefined) {
    if (
      ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)
    )
      return parent.name.getText(sourceFile);
    if (ts.isCallExpression(parent)) {
      const callee = parent.expression.getText(sourceFile).slice(0, 40);
      return `(callback of ${callee})`;
    }
  }
  return '(anonymous)';
}

function measure(file) {
  const text = readFileSync(file, 'utf8');
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const functions = [];
  const visit = (node) => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessor(node) ||
      ts.isSetAccessor(node)
    ) {
      if (node.body !== undefined) {
        const start = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line;
        const end = sourceFile.getLineAndCharacterOfPosition(node.getEnd()).line;
        functions.push({ name: nameOf(node, sourceFile), line: start + 1, lines: end - start + 1 });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return { lines: text.split('\n').length, functions };
}

const options = parseArgs(process.argv.slice(2));
const longFunctions = [];
const longFiles = [];
let counted = 0;
for (const top of ['services', 'packages']) {
  const dir = path.join(root, top);
  for (const file of sources(dir)) {
    counted += 1;
    const relative = path.relative(root, file);
    const { lines, functions } = measure(file);
    if (lines > options.maxFile) longFiles.push({ file: relative, lines });
    for (const fn of functions) {
      if (fn.lines > options.max) longFunctions.push({ file: relative, ...fn });
    }
  }
}
longFunctions.sort((a, b) => b.lines - a.lines);
longFiles.sort((a, b) => b.lines - a.lines);

if (options.json) {
  console.log(
    JSON.stringify(
      { counted, max: options.max, maxFile: options.maxFile, longFunctions, longFiles },
      null,
      2,
    ),
  );
} else {
  console.log(
    `${counted} production files; functions over ${options.max} lines: ${longFunctions.length}; files over ${options.maxFile} lines: ${longFiles.length}`,
  );
  if (longFunctions.length > 0) console.log('\nfunctions:');
  for (const fn of longFunctions)
    console.log(`  ${String(fn.lines).padStart(5)}  ${fn.file}:${fn.line}  ${fn.name}`);
  if (longFiles.length > 0) console.log('\nfiles:');
  for (const file of longFiles) console.log(`  ${String(file.lines).padStart(5)}  ${file.file}`);
}
if (options.check && longFunctions.length > 0) process.exit(1);
