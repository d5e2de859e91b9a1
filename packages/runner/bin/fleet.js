#!/usr/bin/env node
// Bootstrap for `pnpm fleet`: plain JavaScript, so it works on a fresh clone where nothing is
// compiled yet. It compiles the runner (and the packages it uses) with `tsc -b`, quietly, then
// runs the compiled CLI, handing it a function that builds the whole workspace (tsc, then the web
// console with vite):
//   fleet up, restart    check their arguments, then build the whole workspace with a spinner
//                        (`--no-build` skips that and starts what is already compiled)
//   other commands       need only the runner, so `fleet down` works while a service has a
//                        type error
//   help / --help        no build at all once the runner has been compiled
'use strict';

const { spawn } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..', '..');
const cli = path.join(__dirname, '..', 'dist', 'cli.js');
const args = process.argv.slice(2);
const command = args[0];
const wantsHelp =
  command === undefined || command === 'help' || args.includes('--help') || args.includes('-h');

function resolveTsc() {
  try {
    return require.resolve('typescript/bin/tsc', { paths: [root] });
  } catch {
    return undefined;
  }
}

function formatSeconds(milliseconds) {
  return `${(milliseconds / 1000).toFixed(1)} s`;
}

/** Runs `tsc -b <project>` (see {@link runStep}). Resolves to tsc's exit code. */
function build(project, label, quiet) {
  const tsc = resolveTsc();
  if (tsc === undefined) {
    process.stderr.write(
      'TypeScript is not installed in this workspace. Run `pnpm install` first.\n',
    );
    return Promise.resolve(1);
  }
  const interactive = process.stderr.isTTY === true;
  return runStep({
    args: [tsc, '-b', project, ...(interactive ? ['--pretty'] : [])],
    label,
    quiet,
    failure: (code) => `The build failed (tsc -b ${project} exited with ${code})`,
  });
}

/**
 * Builds the web console the gateway serves at /console (`vite build` in packages/console), after
 * the TypeScript build. Resolves to vite's exit code.
 */
function buildConsole() {
  const consoleDir = path.join(root, 'packages', 'console');
  let vite;
  try {
    // vite's exports list no bin file: find the package, then its bin.
    vite = path.join(
      path.dirname(require.resolve('vite/package.json', { paths: [consoleDir] })),
      'bin',
      'vite.js',
    );
  } catch {
    process.stderr.write(
      "The console's build tool (vite) is not installed. Run `pnpm install` first.\n",
    );
    return Promise.resolve(1);
  }
  return runStep({
    args: [vite, 'build', '--logLevel', 'warn'],
    cwd: consoleDir,
    label: 'Building the console…',
    quiet: false,
    failure: (code) => `The console build failed (vite build exited with ${code})`,
  });
}

/**
 * Runs one build step with Node, showing a spinner with the elapsed time on a terminal and one
 * plain line otherwise; a `quiet` step shows nothing unless it takes a while or fails.
 */
function runStep({ args, cwd = root, label, quiet, failure }) {
  const interactive = process.stderr.isTTY === true;
  const startedAt = Date.now();
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));

  let timer;
  let shown = false;
  const show = () => {
    shown = true;
    if (!interactive) {
      process.stderr.write(`${label}\n`);
      return;
    }
    const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    let frame = 0;
    const draw = () => {
      frame = (frame + 1) % frames.length;
      const elapsed = formatSeconds(Date.now() - startedAt);
      process.stderr.write(`\r\u001b[2K${frames[frame]} ${label} ${elapsed}`);
    };
    draw();
    timer = setInterval(draw, 100);
  };
  // A quiet build (the runner alone, usually up to date) only speaks up when it is slow.
  const showTimer = setTimeout(show, quiet ? 1000 : 0);

  return new Promise((resolve) => {
    const finish = (code) => {
      clearTimeout(showTimer);
      if (timer !== undefined) {
        clearInterval(timer);
        process.stderr.write('\r\u001b[2K');
      }
      const text = Buffer.concat(output).toString('utf8');
      if (text.trim() !== '') process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
      const elapsed = formatSeconds(Date.now() - startedAt);
      if (code === 0) {
        if (interactive && shown) process.stderr.write(`\u001b[2mBuilt in ${elapsed}.\u001b[22m\n`);
      } else {
        process.stderr.write(
          `${failure(code)} after ${elapsed}. Fix the errors above, then run the command again.\n`,
        );
      }
      resolve(code);
    };
    child.on('error', (error) => {
      output.push(Buffer.from(`${error.message}\n`));
      finish(1);
    });
    child.on('close', (code) => finish(code ?? 1));
  });
}

async function bootstrap() {
  if (!(wantsHelp && existsSync(cli))) {
    const code = await build(path.join('packages', 'runner'), 'Building the fleet runner…', true);
    if (code !== 0) {
      process.exitCode = code;
      return;
    }
  }
  require(cli).main({
    argv: args,
    buildWorkspace: async () => {
      const code = await build('tsconfig.json', 'Building the fleet…', false);
      return code === 0 ? buildConsole() : code;
    },
  });
}

bootstrap().catch((error) => {
  process.stderr.write(`fleet: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
