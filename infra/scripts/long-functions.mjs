#!/usr/bin/env node
// Lists the functions longer than a limit (default 100 lines) in the project's TypeScript sources.
//   node infra/scripts/long-functions.mjs [--limit N] [--tests]
// Without --tests, test files (*.test.ts) are left out; test-support helpers count.
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import ts from 'typescript';

const args = process.argv.slice(2);
if (args.includes('--help')) {
  console.log(
    'usage: node infra/scripts/long-functions.mjs [--limit N] [--tests]\n' +
      'Lists functions over N lines (default 100) in the .ts files git tracks or would add, longest first.\n' +
      '--tests  include *.test.ts files',
  );
  process.exit(0);
}
const limitAt = args.indexOf('--limit');
const limit = limitAt >= 0 ? Number(args[limitAt + 1]) : 100;
const withTests = args.includes('--tests');

// Tracked files and new ones git does not ignore, as they are in the working tree.
const files = execFileSync(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'],
  {
    encoding: 'utf8',
  },
)
  .split('\n')
  .filter((f) => f && !f.endsWith('.d.ts') && (withTests || !f.endsWith('.test.ts')))
  .filter((f, index, all) => all.indexOf(f) === index && existsSync(f));

const found = [];
for (const file of files) {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const visit = (node) => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node)
    ) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const lines = end - start + 1;
      if (lines > limit) found.push({ file, start, lines, name: nameOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

function nameOf(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText();
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (parent && ts.isCallExpression(parent))
    return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

found.sort((a, b) => b.lines - a.lines);
for (const f of found)
  console.log(`${String(f.lines).padStart(5)}  ${f.file}:${f.start}  ${f.name}`);
console.log(
  `${found.length} functions over ${limit} lines${withTests ? ' (tests included)' : ' (tests left out)'}`,
);
