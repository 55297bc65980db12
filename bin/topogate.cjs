#!/usr/bin/env node
// The package's `bin`: plain CommonJS, so whatever Node the user has (npm install -g on Node 20)
// can run it. topogate itself needs Node 26 (it runs its TypeScript by type stripping), which
// comes with the package as the pinned `node` npm package; this runs bin/topogate.ts with it,
// through bin/installed.mjs. Where that runtime is missing (its install script did not run), one
// line says what is missing and how to get it.
'use strict';

const { spawn } = require('node:child_process');
const { accessSync, constants, readFileSync } = require('node:fs');
const path = require('node:path');

const packageDir = path.join(__dirname, '..');
const entry = path.join(__dirname, 'installed.mjs');
const needsMajor = 26;

const runtime =
  pinnedRuntime() ?? (Number(process.versions.node.split('.')[0]) >= needsMajor ? process.execPath : undefined);
if (runtime === undefined) fail(missingRuntime());
else run(runtime);

/** bin/node of the `node` package beside topogate, when its install script has put the binary there. */
function pinnedRuntime() {
  try {
    const binary = path.join(
      path.dirname(require.resolve('node/package.json', { paths: [packageDir] })),
      'bin',
      'node',
    );
    accessSync(binary, constants.X_OK);
    return binary;
  } catch {
    return undefined;
  }
}

function missingRuntime() {
  const pinned = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')).optionalDependencies.node;
  return (
    `topogate needs Node.js ${needsMajor} and this is ${process.version}; its own runtime, the npm package ` +
    `node@${pinned}, is missing (its install script did not run, e.g. --ignore-scripts): ` +
    `run \`npm rebuild node\` in ${packageDir}, or install topogate again without --ignore-scripts`
  );
}

function run(runtime) {
  // As in the image: fewer malloc arenas, so less memory stays held after a connection flood (docs/reliability.md).
  const env = { MALLOC_ARENA_MAX: '2', ...process.env };
  const child = spawn(runtime, [entry, ...process.argv.slice(2)], { stdio: 'inherit', env });
  // A terminal's Ctrl-C reaches the child itself (same process group); a second SIGINT would cut its
  // graceful stop short. Signals sent to this process alone are passed on.
  const ignore = () => {};
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', ignore);
  for (const signal of ['SIGTERM', 'SIGHUP', 'SIGQUIT']) process.on(signal, forward);
  child.once('error', (error) => fail(`topogate: cannot run its Node.js runtime ${runtime}: ${error.message}`));
  child.once('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
}

function fail(line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}
