import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadTopologyPaths } from '../../../../src/sources/topology/files.ts';

test('a list of 200,000 objects loads whole (more than a function call takes as arguments)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'topogate-files-large-'));
  try {
    const count = 200_000;
    const items = Array.from({ length: count }, (_, index) => ({
      kind: 'Namespace',
      metadata: { name: `ns-${index}` },
    }));
    await writeFile(join(dir, 'namespaces.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    const objects = await loadTopologyPaths([dir]);
    assert.equal(objects.length, count);
    assert.equal(objects.at(-1)?.metadata?.name, `ns-${count - 1}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
