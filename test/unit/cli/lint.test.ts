import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { lint } from '../../../src/cli/lint.ts';
import { runCommand } from './cli-io.ts';
import { policy } from '../policy/loader-cases.ts';

let cwd: string;
before(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'topogate-lint-'));
  await mkdir(join(cwd, 'good'));
  await writeFile(join(cwd, 'good', 'a.yaml'), policy('rules: {spread: [{topologyKey: zone}]}', 'a'));
  await writeFile(join(cwd, 'good', 'b.yaml'), policy('rules: {numa: {}}', 'b'));
  await mkdir(join(cwd, 'bad'));
  await writeFile(join(cwd, 'bad', 'a.yaml'), policy('rules: {numa: {mode: Requird}}', 'a'));
  await writeFile(join(cwd, 'bad', 'b.yaml'), policy('rules: {numa: {}}', 'a'));
});
after(async () => {
  await rm(cwd, { recursive: true, force: true });
});

const run = (...args: string[]) => runCommand(lint, cwd, args);

test('clean policies: exit 0, nothing on stdout', async () => {
  assert.deepEqual(await run('good'), { code: 0, stdout: '', stderr: '2 policies in 2 files: no problems\n' });
});

test('problems: one file:line:col line each on stdout, exit 1', async () => {
  const result = await run('bad', 'good/a.yaml');
  assert.equal(result.code, 1);
  assert.equal(
    result.stdout,
    [
      'bad/a.yaml:5:24: spec.rules.numa.mode: must be one of Required, Preferred; got "Requird" (did you mean "Required"?)',
      'good/a.yaml:3:18: metadata.name: duplicate policy name "a" (first defined at bad/b.yaml:3:18)',
      '',
    ].join('\n'),
  );
  assert.equal(result.stderr, '2 problems; 1 policy in 3 files valid\n');
});

test('missing paths and empty directories are problems', async () => {
  assert.deepEqual(await run('nowhere'), {
    code: 1,
    stdout: 'nowhere: cannot read: no such file or directory\n',
    stderr: '1 problem; 0 policies in 0 files valid\n',
  });
  await mkdir(join(cwd, 'empty'), { recursive: true });
  assert.equal((await run('empty')).stdout, 'empty: no policy files (.yaml, .yml, .json) found\n');
});

test('bad usage exits 2', async () => {
  assert.equal((await run()).code, 2);
  const flag = await run('--strict', 'good');
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /Unknown option '--strict'/);
});

test('an empty file is no problem but gets a warning: the webhook keeps what it last held', async () => {
  await mkdir(join(cwd, 'emptied'));
  await writeFile(join(cwd, 'emptied', 'a.yaml'), policy('rules: {numa: {}}', 'a'));
  await writeFile(join(cwd, 'emptied', 'b.yaml'), '');
  assert.deepEqual(await run('emptied'), {
    code: 0,
    stdout: '',
    stderr:
      "emptied/b.yaml: warning: holds no policy; to remove a file's policies, delete it\n1 policy in 2 files: no problems\n",
  });
});
