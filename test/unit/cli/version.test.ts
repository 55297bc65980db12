import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { main } from '../../../src/cli/main.ts';

const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await main(argv, { stdout, stderr, stdin: new PassThrough(), cwd: process.cwd() });
  return { code, stdout: out, stderr: err };
}

test('`version` and `--version` print topogate <semver> from package.json and the running Node', async () => {
  for (const argv of [['version'], ['--version']]) {
    assert.deepEqual(await run(argv), {
      code: 0,
      stdout: `topogate ${packageJson.version}\nnode ${process.version}\n`,
      stderr: '',
    });
  }
  assert.match(packageJson.version, /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
});

test('`version` takes no arguments', async () => {
  const ran = await run(['version', 'extra']);
  assert.equal(ran.code, 2);
  assert.match(ran.stderr, /takes no arguments/);
});

test('`version` is listed in the overview', async () => {
  assert.match((await run(['--help'])).stdout, /^ {2}version {4}/m);
});
