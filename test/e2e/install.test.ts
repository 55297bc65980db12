// The CLI as a user installs it (interface-v2.md, "Installing it for real"): `npm pack`, then
// `npm install -g` of the tarball with the machine's own Node, older than the 26 topogate runs on,
// into a temporary prefix; then `topogate` from another directory. Needs no cluster, only the npm
// registry (the pinned runtime's install script fetches it; npm's cache makes later runs quick).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from './harness/versions.ts';

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const packageJson = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  version: string;
  optionalDependencies: Record<string, string>;
};
const dir = mkdtempSync(join(tmpdir(), 'topogate-install-'));
const prefix = join(dir, 'prefix');
const elsewhere = mkdtempSync(join(dir, 'elsewhere-'));
const installed = join(prefix, 'lib', 'node_modules', 'topogate');
const topogate = join(prefix, 'bin', 'topogate');

/** PATH without node_modules/.bin (npm run puts the pinned Node 26 there), and no npm_* settings of the npm that runs the tests. */
const userEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env)
    .filter(([name]) => !name.toLowerCase().startsWith('npm_'))
    .map(([name, value]) =>
      name === 'PATH'
        ? [
            name,
            value
              ?.split(delimiter)
              .filter((entry) => !entry.includes('node_modules'))
              .join(delimiter),
          ]
        : [name, value],
    ),
);

function run(command: string, args: readonly string[], cwd = elsewhere): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: userEnv, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

let install: Ran;

before(async () => {
  const machineNode = await run('node', ['--version']);
  assert.equal(machineNode.code, 0, 'the machine has a Node of its own on PATH');
  assert.ok(
    Number(/^v(\d+)/.exec(machineNode.stdout)?.[1]) < 26,
    `the machine's Node is older than 26: ${machineNode.stdout}`,
  );
  const packed = await run('npm', ['pack', '--pack-destination', dir], repoRoot);
  assert.equal(packed.code, 0, packed.stderr);
  const tarball = join(dir, packed.stdout.trim().split('\n').at(-1)!);
  install = await run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball]);
  assert.equal(install.code, 0, install.stderr);
});

after(() => rmSync(dir, { recursive: true, force: true }));

test('npm install -g on an older Node says nothing about topogate’s own engines', () => {
  assert.doesNotMatch(install.stderr, /package: 'topogate@/);
});

test('`topogate version` and `--version` print the package’s version and the pinned Node, from any directory', async () => {
  const expected = `topogate ${packageJson.version}\nnode v${packageJson.optionalDependencies['node']}\n`;
  for (const args of [['version'], ['--version']]) {
    const ran = await run(topogate, args);
    assert.deepEqual(ran, { code: 0, stdout: expected, stderr: '' });
  }
});

test('`topogate lint DIR` checks a folder outside the package', async () => {
  const good = mkdtempSync(join(elsewhere, 'good-'));
  writeFileSync(
    join(good, 'spread.yaml'),
    'apiVersion: topogate.dev/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: spread}\nspec:\n  rules:\n    spread: [{topologyKey: topology.kubernetes.io/zone}]\n',
  );
  const clean = await run(topogate, ['lint', good]);
  assert.equal(clean.code, 0, clean.stderr);
  assert.match(clean.stderr, /1 policy in 1 file: no problems/);

  const bad = mkdtempSync(join(elsewhere, 'bad-'));
  writeFileSync(
    join(bad, 'typo.yaml'),
    'apiVersion: topogate.dev/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: typo}\nspec:\n  rulez: {}\n',
  );
  const problems = await run(topogate, ['lint', bad]);
  assert.equal(problems.code, 1);
  assert.match(problems.stdout, /typo\.yaml:\d+:\d+: /);
});

test('without its runtime, every command exits 1 with one line saying what is missing and how to get it', async (t) => {
  const runtime = join(installed, 'node_modules', 'node', 'bin', 'node');
  accessSync(runtime, constants.X_OK);
  renameSync(runtime, `${runtime}.away`);
  t.after(() => renameSync(`${runtime}.away`, runtime));
  for (const args of [['version'], ['lint', '.'], ['serve'], ['no-such-command']]) {
    const ran = await run(topogate, args);
    assert.equal(ran.code, 1, args.join(' '));
    assert.equal(ran.stdout, '');
    const lines = ran.stderr.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, ran.stderr);
    assert.match(lines[0]!, new RegExp(`node@${packageJson.optionalDependencies['node']}.* is missing`));
    assert.match(lines[0]!, /npm rebuild node/);
  }
});
