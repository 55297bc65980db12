// Same inputs, same bytes: two processes running `topogate mutate` (and `--patch`) on the same files write the
// same output, the decision record's snapshot id included, and both name the same snapshot.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'topogate-mutate-bytes-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const pod = join(dir, 'pod.yaml');
writeFileSync(
  pod,
  'apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: web, labels: {app: web}}\nspec:\n  containers: [{name: c, image: i}]\n',
);

async function mutate(...flags: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    join(repo, 'bin', 'topogate.ts'),
    'mutate',
    '--policies',
    join(repo, 'policies'),
    '--topology',
    join(repo, 'examples', 'cluster'),
    '--now',
    '2026-01-01T00:00:00Z',
    ...flags,
    pod,
  ]);
  return stdout;
}

test('two runs of mutate on the same files write the same bytes, and mutate --patch names the same snapshot', async () => {
  const [first, second, patch] = await Promise.all([mutate(), mutate(), mutate('--patch')]);
  assert.match(first, /topogate\.dev\/decision/);
  assert.equal(first, second);
  const ids = (text: string) => [...text.matchAll(/snapshot\\?":\\?"([^"\\]+)/g)].map((match) => match[1]);
  assert.equal(ids(first).length, 1);
  assert.deepEqual(ids(patch), ids(first));
});
